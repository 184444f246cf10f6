package txnlog

import (
	"reflect"
	"testing"
)

// FuzzDecode: no input may panic Decode or Format, every error has a text,
// and whatever decodes must encode back to a record that decodes the same
// (the bytes may differ: trailing bytes and unknown tags are dropped).
func FuzzDecode(f *testing.F) {
	for _, g := range golden {
		f.Add(g.keyHex, g.valHex, false)
		f.Add(g.keyHex, g.valHex[:len(g.valHex)/2], false)
		f.Add(g.keyHex, []byte(nil), true)
	}
	f.Add([]byte{0x00, 0x00, 0x00, 0x01, 't'}, []byte{0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0x07, 0x00,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x05, 0x01, 0xAA, 0x00, 0x03, 0x01}, false)
	f.Add([]byte{0x7F, 0xFF}, []byte{0}, false)
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
		if !reflect.DeepEqual(again, rec) {
			t.Fatalf("round trip changed the record: %+v %+v -> %+v %+v", rec.Key, rec.Value, again.Key, again.Value)
		}
	})
}
