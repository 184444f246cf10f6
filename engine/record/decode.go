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

func decode(buf []byte, limit int) (Batch, int, error) {
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
	if c == None {
		data = append([]byte(nil), buf[recordsOffset:size]...)
	} else if data, err = decompress(c, buf[recordsOffset:size], limit); err != nil {
		return Batch{}, 0, fmt.Errorf("batch at offset %d: %w", h.BaseOffset, err)
	}
	if b.Records, err = readRecords(data, h.RecordCount); err != nil {
		return Batch{}, 0, fmt.Errorf("batch at offset %d: %w", h.BaseOffset, err)
	}
	return b, size, nil
}
