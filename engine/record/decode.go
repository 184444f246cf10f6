package record

import "fmt"

// Decode decodes the one batch at the front of buf and returns it with the
// number of bytes it took; bytes after it are left alone. It checks, in
// Kafka's order, the length, the magic, the CRC, the codec, and then that the
// records fill the batch exactly. It never panics and allocates in proportion
// to len(buf), or at most MaxDecompressedSize for compressed records.
//
// The records' byte fields share one fresh buffer, not buf, so buf may be
// reused. As in Kafka, a batch whose recordCount is 0 has no records to read,
// and whatever follows its header is not looked at.
func Decode(buf []byte) (Batch, int, error) { return decode(buf, MaxDecompressedSize) }

func decode(buf []byte, limit int) (Batch, int, error) { return parse(buf, limit, true) }

// Validate makes every check Decode makes on the batch at the front of buf,
// and fails exactly when Decode would, without keeping the records: a
// reader that needs a batch's bytes to be a valid batch (the invariant
// checker comparing replicas) need not pay for a decoded copy of each
// record. An uncompressed batch is checked in place, without allocating.
func Validate(buf []byte) error {
	_, _, err := parse(buf, MaxDecompressedSize, false)
	return err
}

// parse is Decode, keeping the records only when keep is set.
func parse(buf []byte, limit int, keep bool) (Batch, int, error) {
	h, err := checkBatch(buf)
	if err != nil {
		return Batch{}, 0, err
	}
	size := h.Size()
	b := Batch{
		BaseOffset:           h.BaseOffset,
		PartitionLeaderEpoch: h.PartitionLeaderEpoch,
		CRC:                  h.CRC,
		Attributes:           h.Attributes,
		LastOffsetDelta:      h.LastOffsetDelta,
		BaseTimestamp:        h.BaseTimestamp,
		MaxTimestamp:         h.MaxTimestamp,
		ProducerID:           h.ProducerID,
		ProducerEpoch:        h.ProducerEpoch,
		BaseSequence:         h.BaseSequence,
	}
	c := h.Compression()
	if !c.Known() {
		return Batch{}, 0, fmt.Errorf("%w: batch at offset %d has codec %d", ErrUnsupportedCompression, h.BaseOffset, int8(c))
	}
	if h.RecordCount < 0 {
		return Batch{}, 0, fmt.Errorf("%w: batch at offset %d has record count %d", ErrCorruptRecord, h.BaseOffset, h.RecordCount)
	}
	if h.RecordCount == 0 {
		return b, size, nil
	}
	var data []byte
	switch {
	case c == None && keep:
		data = append([]byte(nil), buf[recordsOffset:size]...)
	case c == None:
		data = buf[recordsOffset:size]
	default:
		if data, err = decompress(c, buf[recordsOffset:size], limit); err != nil {
			return Batch{}, 0, fmt.Errorf("batch at offset %d: %w", h.BaseOffset, err)
		}
	}
	if b.Records, err = scanRecords(data, h.RecordCount, keep); err != nil {
		return Batch{}, 0, fmt.Errorf("batch at offset %d: %w", h.BaseOffset, err)
	}
	return b, size, nil
}
