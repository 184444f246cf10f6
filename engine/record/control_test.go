package record

import (
	"errors"
	"testing"
)

func TestControlBatch(t *testing.T) {
	for _, m := range []EndTxnMarker{{Abort, 0}, {Commit, 7}, {Abort, -1}, {Commit, 1<<31 - 1}} {
		b := NewControlBatch(500, 1234, 99, 3, 8, m)
		if !b.IsControl() || !b.IsTransactional() || b.Compression() != None || b.TimestampType() != CreateTime {
			t.Errorf("%v: attributes %#04x", m, b.Attributes)
		}
		if b.BaseOffset != 500 || b.LastOffset() != 500 || b.BaseTimestamp != 1234 || b.MaxTimestamp != 1234 ||
			b.ProducerID != 99 || b.ProducerEpoch != 3 || b.PartitionLeaderEpoch != 8 || b.BaseSequence != NoSequence {
			t.Errorf("%v: header %+v", m, b)
		}
		got, _, err := Decode(mustEncode(t, b))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := ParseControlRecord(got.Records[0]); err != nil || got != m {
			t.Errorf("ParseControlRecord = %+v, %v; want %+v", got, err, m)
		}
	}
}

func TestParseControlRecordErrors(t *testing.T) {
	commitValue := []byte{0, 0, 0, 0, 0, 5}
	for _, tc := range []struct {
		name string
		r    Record
		want error
	}{
		{"null key", Record{Value: commitValue}, ErrCorruptRecord},
		{"short key", Record{Key: []byte{0, 0, 0}, Value: commitValue}, ErrCorruptRecord},
		{"negative key version", Record{Key: []byte{0xff, 0xff, 0, 1}, Value: commitValue}, ErrCorruptRecord},
		{"leader change", Record{Key: []byte{0, 0, 0, 2}, Value: commitValue}, ErrNotEndTxnMarker},
		{"unknown type", Record{Key: []byte{0, 0, 0x7f, 0}, Value: commitValue}, ErrNotEndTxnMarker},
		{"null value", Record{Key: []byte{0, 0, 0, 1}}, ErrCorruptRecord},
		{"short value", Record{Key: []byte{0, 0, 0, 1}, Value: []byte{0, 0, 0, 0, 5}}, ErrCorruptRecord},
		{"negative value version", Record{Key: []byte{0, 0, 0, 1}, Value: []byte{0x80, 0, 0, 0, 0, 5}}, ErrCorruptRecord},
	} {
		if _, err := ParseControlRecord(tc.r); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	// Newer versions are read as version 0, and extra bytes are ignored, as
	// Kafka does for forward compatibility.
	r := Record{Key: []byte{0, 3, 0, 0, 9}, Value: []byte{0, 1, 0, 0, 0, 4, 0xaa}}
	if m, err := ParseControlRecord(r); err != nil || m != (EndTxnMarker{Abort, 4}) {
		t.Errorf("newer versions: %+v, %v", m, err)
	}
	if ct, err := ControlTypeOf(Record{Key: []byte{0, 0, 0, 3}}); err != nil || ct.String() != "SNAPSHOT_HEADER" {
		t.Errorf("ControlTypeOf = %v, %v", ct, err)
	}
}
