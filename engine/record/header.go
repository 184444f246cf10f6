package record

import (
	"encoding/binary"
	"fmt"
)

const (
	// LogOverhead is baseOffset plus batchLength: the bytes before the part
	// that batchLength counts (Kafka's Records.LOG_OVERHEAD).
	LogOverhead = 12
	// HeaderSize is the fixed header up to and including recordCount
	// (Kafka's RECORD_BATCH_OVERHEAD); an empty batch is exactly this long.
	HeaderSize = 61

	// MagicV2 is the magic byte of this format (RecordBatch.MAGIC_VALUE_V2).
	MagicV2 int8 = 2
)

// Kafka's "absent" values (RecordBatch.NO_*).
const (
	NoProducerID           int64 = -1 // not an idempotent producer
	NoProducerEpoch        int16 = -1
	NoSequence             int32 = -1
	NoPartitionLeaderEpoch int32 = -1 // what producers send; the leader stamps its epoch
	NoTimestamp            int64 = -1
)

// Where each header field sits (DefaultRecordBatch's *_OFFSET constants).
const (
	baseOffsetOffset           = 0
	lengthOffset               = 8
	partitionLeaderEpochOffset = 12
	magicOffset                = 16
	crcOffset                  = 17
	attributesOffset           = 21 // the CRC covers from here to the end
	lastOffsetDeltaOffset      = 23
	baseTimestampOffset        = 27
	maxTimestampOffset         = 35
	producerIDOffset           = 43
	producerEpochOffset        = 51
	baseSequenceOffset         = 53
	recordCountOffset          = 57
	recordsOffset              = HeaderSize
)

// BatchHeader is the fixed 61-byte header of a batch, everything but the
// records. Scanning a segment needs only this: Size gives the next batch's
// position, LastOffset the offsets covered, without touching the records.
type BatchHeader struct {
	BaseOffset           int64
	BatchLength          int32
	PartitionLeaderEpoch int32
	Magic                int8
	CRC                  uint32
	Attributes           int16
	LastOffsetDelta      int32
	BaseTimestamp        int64
	MaxTimestamp         int64
	ProducerID           int64
	ProducerEpoch        int16
	BaseSequence         int32
	RecordCount          int32
}

// ReadHeader parses the fixed header at the front of buf. It checks the magic
// and that batchLength covers at least the header, but not the CRC and not
// that buf holds the whole batch: a scanner may read headers alone.
func ReadHeader(buf []byte) (BatchHeader, error) {
	var h BatchHeader
	if len(buf) < LogOverhead {
		return h, fmt.Errorf("%w: %d bytes, a batch starts with %d", ErrTruncated, len(buf), LogOverhead)
	}
	h.BaseOffset = int64(binary.BigEndian.Uint64(buf[baseOffsetOffset:]))
	h.BatchLength = int32(binary.BigEndian.Uint32(buf[lengthOffset:]))
	// Check the length far enough to reach the magic byte first, so that a
	// legacy message set reports its magic rather than a length.
	if h.BatchLength < magicOffset+1-LogOverhead {
		return h, fmt.Errorf("%w: batchLength %d", ErrBadLength, h.BatchLength)
	}
	if len(buf) <= magicOffset {
		return h, fmt.Errorf("%w: %d bytes, the magic byte is at %d", ErrTruncated, len(buf), magicOffset)
	}
	h.PartitionLeaderEpoch = int32(binary.BigEndian.Uint32(buf[partitionLeaderEpochOffset:]))
	h.Magic = int8(buf[magicOffset])
	if h.Magic != MagicV2 {
		return h, fmt.Errorf("%w: magic %d at offset %d, want %d", ErrUnknownMagic, h.Magic, h.BaseOffset, MagicV2)
	}
	if h.BatchLength < HeaderSize-LogOverhead {
		return h, fmt.Errorf("%w: batchLength %d is below the %d-byte v2 header", ErrBadLength, h.BatchLength, HeaderSize-LogOverhead)
	}
	if len(buf) < HeaderSize {
		return h, fmt.Errorf("%w: %d bytes, the header is %d", ErrTruncated, len(buf), HeaderSize)
	}
	h.CRC = binary.BigEndian.Uint32(buf[crcOffset:])
	h.Attributes = int16(binary.BigEndian.Uint16(buf[attributesOffset:]))
	h.LastOffsetDelta = int32(binary.BigEndian.Uint32(buf[lastOffsetDeltaOffset:]))
	h.BaseTimestamp = int64(binary.BigEndian.Uint64(buf[baseTimestampOffset:]))
	h.MaxTimestamp = int64(binary.BigEndian.Uint64(buf[maxTimestampOffset:]))
	h.ProducerID = int64(binary.BigEndian.Uint64(buf[producerIDOffset:]))
	h.ProducerEpoch = int16(binary.BigEndian.Uint16(buf[producerEpochOffset:]))
	h.BaseSequence = int32(binary.BigEndian.Uint32(buf[baseSequenceOffset:]))
	h.RecordCount = int32(binary.BigEndian.Uint32(buf[recordCountOffset:]))
	return h, nil
}

// Size is the whole batch's length in bytes, LogOverhead + BatchLength
// (Kafka's sizeInBytes).
func (h BatchHeader) Size() int { return LogOverhead + int(h.BatchLength) }

// LastOffset is the offset of the batch's last record. Kafka keeps
// lastOffsetDelta even when compaction removes that record, so offsets stay
// accounted for.
func (h BatchHeader) LastOffset() int64 { return h.BaseOffset + int64(h.LastOffsetDelta) }

// NextOffset is the offset after the batch (Kafka's nextOffset).
func (h BatchHeader) NextOffset() int64 { return h.LastOffset() + 1 }

// LastSequence is the producer sequence of the last record, wrapping as
// Kafka does; NoSequence when the producer is not idempotent.
func (h BatchHeader) LastSequence() int32 { return lastSequence(h.BaseSequence, h.LastOffsetDelta) }

// Compression is the codec in attributes bits 0-2.
func (h BatchHeader) Compression() Compression { return attributes(h.Attributes).compression() }

// TimestampType is attributes bit 3.
func (h BatchHeader) TimestampType() TimestampType { return attributes(h.Attributes).timestampType() }

// IsTransactional is attributes bit 4.
func (h BatchHeader) IsTransactional() bool { return attributes(h.Attributes).isTransactional() }

// IsControl is attributes bit 5: the batch holds a transaction marker.
func (h BatchHeader) IsControl() bool { return attributes(h.Attributes).isControl() }

// HasDeleteHorizon is attributes bit 6 (KIP-534); BaseTimestamp then holds
// the delete horizon.
func (h BatchHeader) HasDeleteHorizon() bool { return attributes(h.Attributes).hasDeleteHorizon() }

// VerifyCRC checks the CRC of the batch at the front of buf without parsing
// its records, as Kafka's DefaultRecordBatch.ensureValid does. Bytes after
// the batch are ignored.
func VerifyCRC(buf []byte) error {
	_, err := checkBatch(buf)
	return err
}

// checkBatch reads the header of the batch at the front of buf and checks
// that buf holds all of it and that its CRC matches.
func checkBatch(buf []byte) (BatchHeader, error) {
	h, err := ReadHeader(buf)
	if err != nil {
		return h, err
	}
	if int64(len(buf)) < int64(h.Size()) {
		return h, fmt.Errorf("%w: %d bytes, the batch at offset %d is %d", ErrTruncated, len(buf), h.BaseOffset, h.Size())
	}
	if got := CRC32C(buf[attributesOffset:h.Size()]); got != h.CRC {
		return h, fmt.Errorf("%w: batch at offset %d stores %#08x, bytes give %#08x", ErrCRCMismatch, h.BaseOffset, h.CRC, got)
	}
	return h, nil
}
