package producerstate

import (
	"errors"
	"slices"
	"testing"
)

// FuzzDecodeSnapshot: any bytes either decode, and then what they decode to
// survives an encode and decode unchanged, or are a CorruptSnapshotError;
// never a panic. (Bytes are not compared: Kafka's reader normalises a
// negative last offset to "no batch" and ignores trailing bytes.)
func FuzzDecodeSnapshot(f *testing.F) {
	f.Add([]byte{})
	f.Add(EncodeSnapshot(nil))
	f.Add(EncodeSnapshot([]Entry{{ProducerID: 1, Epoch: 2, CurrentTxnFirstOffset: 3,
		Batches: []BatchMetadata{{LastSeq: 4, LastOffset: 5, OffsetDelta: 1, Timestamp: 6}}}}))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := DecodeSnapshot(data)
		if err != nil {
			if !errors.Is(err, ErrCorruptSnapshot) {
				t.Fatalf("error %v is not a corrupt snapshot error", err)
			}
			return
		}
		again, err := DecodeSnapshot(EncodeSnapshot(entries))
		if err != nil {
			t.Fatalf("re-encoded snapshot does not decode: %v", err)
		}
		slices.SortStableFunc(entries, func(a, b Entry) int {
			if a.ProducerID < b.ProducerID {
				return -1
			} else if a.ProducerID > b.ProducerID {
				return 1
			}
			return 0
		})
		if !slices.EqualFunc(entries, again, equalEntry) {
			t.Fatalf("round trip changed\n%+v\nto\n%+v", entries, again)
		}
	})
}
