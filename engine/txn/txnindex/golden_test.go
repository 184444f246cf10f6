package txnindex

import (
	"bytes"
	"errors"
	"testing"
)

// Golden bytes worked out by hand from AbortedTxn.java's layout: int16
// version, then four big-endian int64s.
//
//	983493 = 0x000F01C5 (15*65536 + 1*256 + 197)
//	137 = 0x89, 299 = 0x012B, 200 = 0xC8, 1000 = 0x03E8
var (
	goldenSerde = []byte{ // AbortedTxn(983493, 137, 299, 200), testAbortedTxnSerde's values
		0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x0F, 0x01, 0xC5,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x89,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x2B,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xC8,
	}
	goldenMax = []byte{ // AbortedTxn(MaxInt64, 0, 10, 11)
		0x00, 0x00,
		0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0A,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0B,
	}
	golden1000 = []byte{ // AbortedTxn(1000, 0, 10, 11)
		0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xE8,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0A,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0B,
	}
)

func withVersionBytes(hi, lo byte) []byte {
	b := append([]byte(nil), golden1000...)
	b[0], b[1] = hi, lo
	return b
}

func TestGoldenEncode(t *testing.T) {
	for _, tc := range []struct {
		name string
		txn  AbortedTxn
		want []byte
	}{
		{"testAbortedTxnSerde values", NewAbortedTxn(983493, 137, 299, 200), goldenSerde},
		{"max producer id", NewAbortedTxn(1<<63-1, 0, 10, 11), goldenMax},
		{"producer 1000", NewAbortedTxn(1000, 0, 10, 11), golden1000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.txn.AppendTo(nil)
			if len(got) != EntrySize || !bytes.Equal(got, tc.want) {
				t.Fatalf("encode = % X, want % X", got, tc.want)
			}
			d, err := Decode("00000000000000000000.txnindex", tc.want)
			if err != nil || len(d.Entries) != 1 || d.Entries[0] != tc.txn || d.TrailingPartialEntry != 0 {
				t.Fatalf("decode = %+v, %v; want [%v]", d, err, tc.txn)
			}
		})
	}
}

// Kafka writes the version with putShort but reads it with a one-byte get:
// only the high byte counts, and it is signed.
func TestGoldenVersionAsKafkaReadsIt(t *testing.T) {
	for _, tc := range []struct {
		name    string
		hi, lo  byte
		version int16
		wantErr string
	}{
		{"00 00 is version 0", 0x00, 0x00, 0, ""},
		{"00 01 reads as version 0 (low byte ignored)", 0x00, 0x01, 0, ""},
		{"01 00 is version 1: refused", 0x01, 0x00, 1,
			"Unexpected aborted transaction version 1 in transaction index 00000000000000000000.txnindex, current version is 0"},
		{"7F FF is version 127: refused", 0x7F, 0xFF, 127,
			"Unexpected aborted transaction version 127 in transaction index 00000000000000000000.txnindex, current version is 0"},
		{"FF FF reads as version -1: accepted, as Kafka's version > 0 check passes", 0xFF, 0xFF, -1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := withVersionBytes(tc.hi, tc.lo)
			d, err := Decode("00000000000000000000.txnindex", data)
			if tc.wantErr != "" {
				var ve *UnexpectedVersionError
				if !errors.As(err, &ve) || err.Error() != tc.wantErr || ve.Version != tc.version {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				if d.Entries != nil {
					t.Fatalf("entries = %v, want none (allAbortedTxns throws)", d.Entries)
				}
				return
			}
			if err != nil || len(d.Entries) != 1 || d.Entries[0].KafkaVersion() != tc.version {
				t.Fatalf("decode = %+v, %v; want one entry of version %d", d, err, tc.version)
			}
			if got := Encode(d.Entries); !bytes.Equal(got, data) {
				t.Fatalf("re-encode = % X, want % X (raw version kept)", got, data)
			}
		})
	}
}

func TestGoldenTrailingPartialEntry(t *testing.T) {
	data := append(append([]byte(nil), goldenSerde...), golden1000[:20]...)
	d, err := Decode("00000000000000000000.txnindex", data)
	if err != nil || len(d.Entries) != 1 || d.Entries[0] != NewAbortedTxn(983493, 137, 299, 200) || d.TrailingPartialEntry != 20 {
		t.Fatalf("decode = %+v, %v; want one entry and 20 trailing bytes", d, err)
	}
	d, err = Decode("x.txnindex", golden1000[:EntrySize-1])
	if err != nil || len(d.Entries) != 0 || d.TrailingPartialEntry != EntrySize-1 {
		t.Fatalf("decode of 33 bytes = %+v, %v; want nothing and 33 trailing bytes", d, err)
	}
}

func TestGoldenDump(t *testing.T) {
	data := append(append([]byte(nil), golden1000...), goldenSerde...)
	got, err := Dump("00000000000000000000.txnindex", data)
	want := "version: 0 producerId: 1000 firstOffset: 0 lastOffset: 10 lastStableOffset: 11\n" +
		"version: 0 producerId: 983493 firstOffset: 137 lastOffset: 299 lastStableOffset: 200\n"
	if err != nil || got != want {
		t.Fatalf("Dump = %q, %v; want %q", got, err, want)
	}
	// A bad second entry: dumpTxnIndex prints nothing, not even the first.
	data = append(append([]byte(nil), golden1000...), withVersionBytes(0x02, 0x00)...)
	got, err = Dump("00000000000000000000.txnindex", data)
	if got != "" || err == nil || err.Error() != "Unexpected aborted transaction version 2 in transaction index 00000000000000000000.txnindex, current version is 0" {
		t.Fatalf("Dump = %q, %v; want nothing and the version error", got, err)
	}
}

func TestAbortedTxnString(t *testing.T) {
	got := NewAbortedTxn(983493, 137, 299, 200).String()
	want := "AbortedTxn(version=0, producerId=983493, firstOffset=137, lastOffset=299, lastStableOffset=200)"
	if got != want {
		t.Fatalf("String = %q, want %q", got, want)
	}
	if a := NewAbortedTxn(983493, 137, 299, 200).AsAbortedTransaction(); a != (AbortedTransaction{983493, 137}) {
		t.Fatalf("AsAbortedTransaction = %+v", a)
	}
}
