package record

import (
	"bytes"
	"errors"
	"testing"
)

func TestReadHeader(t *testing.T) {
	b := withCodec(sampleBatches()["extremes"], Zstd)
	enc, err := b.AppendEncoded(nil)
	if err != nil {
		t.Fatal(err)
	}
	// A scanner reads the header alone, without the records.
	h, err := ReadHeader(enc[:HeaderSize])
	if err != nil {
		t.Fatal(err)
	}
	want := BatchHeader{
		BaseOffset: b.BaseOffset, BatchLength: int32(len(enc) - LogOverhead),
		PartitionLeaderEpoch: b.PartitionLeaderEpoch, Magic: 2, CRC: b.CRC,
		Attributes: b.Attributes, LastOffsetDelta: b.LastOffsetDelta,
		BaseTimestamp: b.BaseTimestamp, MaxTimestamp: b.MaxTimestamp,
		ProducerID: b.ProducerID, ProducerEpoch: b.ProducerEpoch,
		BaseSequence: b.BaseSequence, RecordCount: int32(len(b.Records)),
	}
	if h != want {
		t.Errorf("ReadHeader =\n%+v\nwant\n%+v", h, want)
	}
	if h.Size() != len(enc) || h.LastOffset() != b.LastOffset() || h.NextOffset() != b.LastOffset()+1 || h.LastSequence() != b.LastSequence() {
		t.Errorf("Size %d LastOffset %d LastSequence %d", h.Size(), h.LastOffset(), h.LastSequence())
	}
	if h.Compression() != Zstd || h.TimestampType() != LogAppendTime || !h.IsTransactional() || h.IsControl() || !h.HasDeleteHorizon() {
		t.Errorf("attribute helpers on %#04x", h.Attributes)
	}
	for n := range HeaderSize {
		if _, err := ReadHeader(enc[:n]); !errors.Is(err, ErrTruncated) {
			t.Errorf("ReadHeader of %d bytes: %v, want ErrTruncated", n, err)
		}
	}
	// ReadHeader does not check the CRC; VerifyCRC and Decode do.
	bad := bytes.Clone(enc)
	bad[len(bad)-1] ^= 1
	if _, err := ReadHeader(bad); err != nil {
		t.Errorf("ReadHeader checked the CRC: %v", err)
	}
	if err := VerifyCRC(bad); !errors.Is(err, ErrCRCMismatch) {
		t.Errorf("VerifyCRC: %v", err)
	}
	// VerifyCRC looks at one batch; what follows is someone else's.
	if err := VerifyCRC(append(bytes.Clone(enc), "next batch"...)); err != nil {
		t.Errorf("VerifyCRC with trailing bytes: %v", err)
	}
}
