package offsets

import (
	"reflect"
	"testing"
)

// FuzzDecode: no input may panic Decode or Format, and whatever decodes
// must encode back to something that decodes to the same record (the
// bytes may differ: a type-0 key is written as type 1, trailing bytes and
// unknown tagged fields are dropped).
func FuzzDecode(f *testing.F) {
	for _, g := range golden {
		f.Add(g.keyHex, g.valHex, false)
		f.Add(g.keyHex, g.valHex[:len(g.valHex)/2], false)
		f.Add(g.keyHex, []byte(nil), true)
	}
	f.Add([]byte{0x00, 0x03, 0x00, 0x01, 'g'}, []byte{0, 0, 0, 0, 0, 7, 0x01, 0x05, 0x02, 0xAB, 0xCD}, false)
	f.Add([]byte{0x7F, 0xFF}, []byte{0}, false)
	// A KIP-848 member record with its tagged classic metadata.
	f.Add([]byte{0x00, 0x05, 0x00, 0x01, 'g', 0x00, 0x01, 'm'},
		[]byte{0x00, 0x00, 0x00, 0x00, 0x02, 'c', 0x02, 'h', 0x02, 0x02, 't', 0x00, 0, 0, 0, 10, 0x00,
			0x01, 0x00, 0x0F, 0x00, 0x00, 0xAF, 0xC8, 0x02, 0x06, 'r', 'a', 'n', 'g', 'e', 0x02, 0x01, 0x00, 0x00}, false)
	f.Fuzz(func(t *testing.T, key, value []byte, tombstone bool) {
		if tombstone {
			value = nil
		}
		if _, _, _, err := Format(0, key, value); err != nil && key != nil {
			t.Fatalf("Format returned an error for a keyed record: %v", err)
		}
		rec, err := Decode(key, value)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error text")
			}
			return
		}
		kb, err := EncodeKey(rec.Key)
		if err != nil {
			t.Fatalf("EncodeKey(%+v): %v", rec.Key, err)
		}
		vb, err := EncodeValue(rec.ValueVersion, rec.Value)
		if err != nil {
			t.Fatalf("EncodeValue(%+v): %v", rec.Value, err)
		}
		again, err := Decode(kb, vb)
		if err != nil {
			t.Fatalf("re-decode: %v", err)
		}
		if !reflect.DeepEqual(again.Key, rec.Key) || !reflect.DeepEqual(again.Value, rec.Value) {
			t.Fatalf("round trip changed the record: %+v %+v -> %+v %+v", rec.Key, rec.Value, again.Key, again.Value)
		}
	})
}
