package txnindex

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzDecode: any file's bytes decode without panicking; a file that
// decodes re-encodes to itself (trailing partial entry aside), and one that
// does not fails only with Kafka's version error.
func FuzzDecode(f *testing.F) {
	f.Add([]byte{})
	f.Add(goldenSerde)
	f.Add(append(append([]byte(nil), goldenSerde...), goldenMax...))
	f.Add(golden1000[:17])
	f.Add(withVersionBytes(0x01, 0x00))
	f.Add(withVersionBytes(0xFF, 0x01))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Decode("f.txnindex", data)
		if err != nil {
			var ve *UnexpectedVersionError
			if !errors.As(err, &ve) || ve.Version <= CurrentVersion || ve.Position%EntrySize != 0 {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		whole := len(data) - d.TrailingPartialEntry
		if d.TrailingPartialEntry < 0 || d.TrailingPartialEntry >= EntrySize || len(d.Entries)*EntrySize != whole {
			t.Fatalf("%d entries and %d trailing bytes for %d bytes", len(d.Entries), d.TrailingPartialEntry, len(data))
		}
		if got := Encode(d.Entries); !bytes.Equal(got, data[:whole]) {
			t.Fatalf("re-encode = % X, want % X", got, data[:whole])
		}
		// The queries walk the same bytes and must not fail either.
		x := Open(0, "f.txnindex", data)
		if _, err := x.CollectAbortedTxns(0, 1<<62); err != nil {
			t.Fatalf("collect: %v", err)
		}
		if err := x.TruncateTo(0); err != nil {
			t.Fatalf("truncate: %v", err)
		}
	})
}
