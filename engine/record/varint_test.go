package record

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math"
	"testing"
)

// The vectors below are Kafka's own: ByteUtilsTest.testVarintSerde,
// testVarlongSerde and testUnsignedVarintSerde in
// clients/src/test/java/org/apache/kafka/common/utils/ByteUtilsTest.java.

var kafkaVarints = []struct {
	v   int64
	hex string
}{
	// testVarintSerde (int32 values; a varlong writes the same bytes)
	{0, "00"}, {-1, "01"}, {1, "02"}, {63, "7e"}, {-64, "7f"},
	{64, "8001"}, {-65, "8101"}, {8191, "fe7f"}, {-8192, "ff7f"},
	{8192, "808001"}, {-8193, "818001"}, {1048575, "feff7f"}, {-1048576, "ffff7f"},
	{1048576, "80808001"}, {-1048577, "81808001"}, {134217727, "feffff7f"}, {-134217728, "ffffff7f"},
	{134217728, "8080808001"}, {-134217729, "8180808001"},
	{math.MaxInt32, "feffffff0f"}, {math.MinInt32, "ffffffff0f"},
	// testVarlongSerde beyond int32
	{17179869183, "feffffff7f"}, {-17179869184, "ffffffff7f"},
	{17179869184, "808080808001"}, {-17179869185, "818080808001"},
	{2199023255551, "feffffffff7f"}, {-2199023255552, "ffffffffff7f"},
	{2199023255552, "80808080808001"}, {-2199023255553, "81808080808001"},
	{281474976710655, "feffffffffff7f"}, {-281474976710656, "ffffffffffff7f"},
	{281474976710656, "8080808080808001"}, {-281474976710657, "8180808080808001"},
	{36028797018963967, "feffffffffffff7f"}, {-36028797018963968, "ffffffffffffff7f"},
	{36028797018963968, "808080808080808001"}, {-36028797018963969, "818080808080808001"},
	{4611686018427387903, "feffffffffffffff7f"}, {-4611686018427387904, "ffffffffffffffff7f"},
	{4611686018427387904, "80808080808080808001"}, {-4611686018427387905, "81808080808080808001"},
	{math.MaxInt64, "feffffffffffffffff01"}, {math.MinInt64, "ffffffffffffffffff01"},
}

func TestVarintKafkaVectors(t *testing.T) {
	for _, tc := range kafkaVarints {
		want, _ := hex.DecodeString(tc.hex)
		if got := AppendVarint(nil, tc.v); !bytes.Equal(got, want) {
			t.Errorf("AppendVarint(%d) = %x, want %s", tc.v, got, tc.hex)
		}
		if n := VarintSize(tc.v); n != len(want) {
			t.Errorf("VarintSize(%d) = %d, want %d", tc.v, n, len(want))
		}
		v, n, err := Varint(append(want, 0xaa)) // a trailing byte must be left alone
		if err != nil || v != tc.v || n != len(want) {
			t.Errorf("Varint(%s) = %d, %d, %v; want %d, %d", tc.hex, v, n, err, tc.v, len(want))
		}
		if tc.v < math.MinInt32 || tc.v > math.MaxInt32 {
			continue
		}
		v32, n, err := varint32(want)
		if err != nil || int64(v32) != tc.v || n != len(want) {
			t.Errorf("varint32(%s) = %d, %d, %v; want %d", tc.hex, v32, n, err, tc.v)
		}
	}
}

func TestUvarintKafkaVectors(t *testing.T) {
	// testUnsignedVarintSerde writes int32s as unsigned 32-bit values.
	for _, tc := range []struct {
		v   int32
		hex string
	}{
		{0, "00"}, {-1, "ffffffff0f"}, {1, "01"}, {63, "3f"}, {-64, "c0ffffff0f"},
		{64, "40"}, {8191, "ff3f"}, {-8192, "80c0ffff0f"}, {8192, "8040"},
		{-8193, "ffbfffff0f"}, {1048575, "ffff3f"}, {1048576, "808040"},
		{math.MaxInt32, "ffffffff07"}, {math.MinInt32, "8080808008"},
	} {
		want, _ := hex.DecodeString(tc.hex)
		u := uint64(uint32(tc.v))
		if got := AppendUvarint(nil, u); !bytes.Equal(got, want) {
			t.Errorf("AppendUvarint(%d) = %x, want %s", u, got, tc.hex)
		}
		if n := UvarintSize(u); n != len(want) {
			t.Errorf("UvarintSize(%d) = %d, want %d", u, n, len(want))
		}
		v, n, err := Uvarint(want)
		if err != nil || v != u || n != len(want) {
			t.Errorf("Uvarint(%s) = %d, %d, %v; want %d", tc.hex, v, n, err, u)
		}
	}
}

func TestVarintErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		hex  string
		want error
	}{
		{"empty", "", ErrTruncated},
		{"continuation at the end", "8080", ErrTruncated},
		// ByteUtilsTest.testInvalidVarlong: one byte too many.
		{"eleven bytes", "ffffffffffffffffffff01", ErrCorruptRecord},
		{"tenth byte overflows", "ffffffffffffffffff02", ErrCorruptRecord},
	} {
		buf, _ := hex.DecodeString(tc.hex)
		if _, _, err := Varint(buf); !errors.Is(err, tc.want) {
			t.Errorf("Varint(%s): %v, want %v", tc.name, err, tc.want)
		}
		if _, _, err := Uvarint(buf); !errors.Is(err, tc.want) {
			t.Errorf("Uvarint(%s): %v, want %v", tc.name, err, tc.want)
		}
	}
	// ByteUtilsTest.testInvalidVarint: an int32 varint of six bytes.
	for _, h := range []string{"ffffffffff01", "ffffffff10"} {
		buf, _ := hex.DecodeString(h)
		if _, _, err := varint32(buf); !errors.Is(err, ErrCorruptRecord) {
			t.Errorf("varint32(%s): %v, want ErrCorruptRecord", h, err)
		}
	}
	if _, _, err := varint32([]byte{0xff}); !errors.Is(err, ErrTruncated) {
		t.Errorf("varint32 cut short: %v, want ErrTruncated", err)
	}
}

// Kafka reads varints that are longer than needed (0x80 0x00 is a two-byte
// zero); so do we, and we write the short form back.
func TestVarintAcceptsOverlongForms(t *testing.T) {
	if v, n, err := Varint([]byte{0x80, 0x00}); v != 0 || n != 2 || err != nil {
		t.Errorf("Varint(80 00) = %d, %d, %v", v, n, err)
	}
	if v, n, err := varint32([]byte{0x82, 0x80, 0x00}); v != 1 || n != 3 || err != nil {
		t.Errorf("varint32(82 80 00) = %d, %d, %v", v, n, err)
	}
}
