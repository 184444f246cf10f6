package record

import (
	"encoding/binary"
	"fmt"
	"math"
)

// AppendEncoded appends the batch's wire bytes to dst, compressing the
// records with the codec in Attributes. It writes every field as it is,
// computing only batchLength, recordCount (len(Records)) and the CRC, which
// it also stores in b.CRC. On error dst is returned unchanged.
func (b *Batch) AppendEncoded(dst []byte) ([]byte, error) {
	c := b.Compression()
	if !c.Known() {
		return dst, fmt.Errorf("%w: attributes %#04x name codec %d", ErrUnsupportedCompression, uint16(b.Attributes), int8(c))
	}
	if len(b.Records) > math.MaxInt32 {
		return dst, fmt.Errorf("%w: %d records do not fit recordCount", ErrBadLength, len(b.Records))
	}
	start := len(dst)
	dst = binary.BigEndian.AppendUint64(dst, uint64(b.BaseOffset))
	dst = binary.BigEndian.AppendUint32(dst, 0) // batchLength, known at the end
	dst = binary.BigEndian.AppendUint32(dst, uint32(b.PartitionLeaderEpoch))
	dst = append(dst, byte(MagicV2))
	dst = binary.BigEndian.AppendUint32(dst, 0) // crc, computed at the end
	dst = binary.BigEndian.AppendUint16(dst, uint16(b.Attributes))
	dst = binary.BigEndian.AppendUint32(dst, uint32(b.LastOffsetDelta))
	dst = binary.BigEndian.AppendUint64(dst, uint64(b.BaseTimestamp))
	dst = binary.BigEndian.AppendUint64(dst, uint64(b.MaxTimestamp))
	dst = binary.BigEndian.AppendUint64(dst, uint64(b.ProducerID))
	dst = binary.BigEndian.AppendUint16(dst, uint16(b.ProducerEpoch))
	dst = binary.BigEndian.AppendUint32(dst, uint32(b.BaseSequence))
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(b.Records)))

	var err error
	if c == None {
		dst, err = b.appendRecords(dst)
	} else {
		// The records are compressed as one stream; recordCount stays
		// outside it so a reader can size things before inflating.
		var raw []byte
		if raw, err = b.appendRecords(make([]byte, 0, b.recordsSizeHint())); err == nil {
			dst, err = compress(c, dst, raw)
		}
	}
	if err != nil {
		return dst[:start], err
	}

	batch := dst[start:]
	if len(batch)-LogOverhead > math.MaxInt32 {
		return dst[:start], fmt.Errorf("%w: batch of %d bytes does not fit batchLength", ErrBadLength, len(batch))
	}
	binary.BigEndian.PutUint32(batch[lengthOffset:], uint32(len(batch)-LogOverhead))
	b.CRC = CRC32C(batch[attributesOffset:])
	binary.BigEndian.PutUint32(batch[crcOffset:], b.CRC)
	return dst, nil
}

func (b *Batch) appendRecords(dst []byte) ([]byte, error) {
	for i := range b.Records {
		var err error
		if dst, err = appendRecord(dst, &b.Records[i]); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// recordsSizeHint is a cheap upper-bound guess of the uncompressed records'
// size, to allocate the buffer once.
func (b *Batch) recordsSizeHint() int {
	n := 0
	for i := range b.Records {
		r := &b.Records[i]
		n += 32 + len(r.Key) + len(r.Value)
		for j := range r.Headers {
			n += 10 + len(r.Headers[j].Key) + len(r.Headers[j].Value)
		}
	}
	return n
}
