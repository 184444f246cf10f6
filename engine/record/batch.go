package record

// Header is a record header (KIP-82): a string key and a byte value that
// Kafka never looks at. A nil Value is a null header value, distinct from an
// empty one; keys cannot be null.
type Header struct {
	Key   string
	Value []byte
}

// Record is one record inside a batch. Offset, timestamp and sequence are
// stored as deltas from the batch's base values, which is what makes small
// records small.
type Record struct {
	Attributes     int8  // unused by Kafka so far; written as 0
	TimestampDelta int64 // from the batch's BaseTimestamp
	OffsetDelta    int32 // from the batch's BaseOffset; also the sequence delta
	Key            []byte
	Value          []byte // nil is a tombstone for compaction
	Headers        []Header
}

// Batch is a decoded RecordBatch v2. Decode fills every field from the
// bytes; AppendEncoded writes them back, computing only batchLength, the CRC
// and recordCount. It does not derive LastOffsetDelta or the timestamps from
// the records, because after compaction they legitimately differ (Kafka keeps
// the original lastOffsetDelta and maxTimestamp).
type Batch struct {
	BaseOffset           int64
	PartitionLeaderEpoch int32
	CRC                  uint32 // as read by Decode; set by AppendEncoded
	Attributes           int16
	LastOffsetDelta      int32
	BaseTimestamp        int64
	MaxTimestamp         int64
	ProducerID           int64 // NoProducerID when not idempotent
	ProducerEpoch        int16 // NoProducerEpoch
	BaseSequence         int32 // NoSequence
	Records              []Record
}

// Compression is the codec in attributes bits 0-2.
func (b *Batch) Compression() Compression { return attributes(b.Attributes).compression() }

// TimestampType is attributes bit 3.
func (b *Batch) TimestampType() TimestampType { return attributes(b.Attributes).timestampType() }

// IsTransactional is attributes bit 4.
func (b *Batch) IsTransactional() bool { return attributes(b.Attributes).isTransactional() }

// IsControl is attributes bit 5: the batch holds a transaction marker.
func (b *Batch) IsControl() bool { return attributes(b.Attributes).isControl() }

// HasDeleteHorizon is attributes bit 6 (KIP-534): BaseTimestamp then holds
// the delete horizon, and record timestamp deltas are relative to it.
func (b *Batch) HasDeleteHorizon() bool { return attributes(b.Attributes).hasDeleteHorizon() }

// LastOffset is BaseOffset + LastOffsetDelta.
func (b *Batch) LastOffset() int64 { return b.BaseOffset + int64(b.LastOffsetDelta) }

// NextOffset is the offset after the batch.
func (b *Batch) NextOffset() int64 { return b.LastOffset() + 1 }

// LastSequence is the producer sequence of the last record as Kafka computes
// it: BaseSequence + LastOffsetDelta, wrapping from MaxInt32 to 0, and
// NoSequence when BaseSequence is NoSequence.
func (b *Batch) LastSequence() int32 { return lastSequence(b.BaseSequence, b.LastOffsetDelta) }

// Offset is a record's absolute offset.
func (b *Batch) Offset(r Record) int64 { return b.BaseOffset + int64(r.OffsetDelta) }

// Timestamp is a record's timestamp as Kafka reports it: with LogAppendTime
// every record takes the batch's MaxTimestamp, otherwise BaseTimestamp plus
// the record's delta.
func (b *Batch) Timestamp(r Record) int64 {
	if b.TimestampType() == LogAppendTime {
		return b.MaxTimestamp
	}
	return b.BaseTimestamp + r.TimestampDelta
}

// Sequence is a record's producer sequence number, NoSequence when the
// producer is not idempotent.
func (b *Batch) Sequence(r Record) int32 {
	if b.BaseSequence < 0 {
		return NoSequence
	}
	return incrementSequence(b.BaseSequence, r.OffsetDelta)
}
