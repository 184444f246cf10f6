package record

import "testing"

// bitwiseCRC32C is CRC-32C computed one bit at a time from its definition
// (reflected polynomial 0x82F63B78), independent of hash/crc32's tables and
// hardware paths. It derives the CRCs in the golden vectors.
func bitwiseCRC32C(b []byte) uint32 {
	crc := ^uint32(0)
	for _, x := range b {
		crc ^= uint32(x)
		for range 8 {
			if crc&1 != 0 {
				crc = crc>>1 ^ 0x82F63B78
			} else {
				crc >>= 1
			}
		}
	}
	return ^crc
}

func TestCRC32C(t *testing.T) {
	// The catalogued check value of CRC-32C (iSCSI, RFC 3720 B.4): the CRC
	// of the ASCII string "123456789".
	if got := CRC32C([]byte("123456789")); got != 0xE3069283 {
		t.Errorf("CRC32C(123456789) = %#08x, want 0xe3069283", got)
	}
	if got := bitwiseCRC32C([]byte("123456789")); got != 0xE3069283 {
		t.Errorf("reference CRC32C(123456789) = %#08x, want 0xe3069283", got)
	}
	// RFC 3720 B.4: 32 bytes of zeros.
	if got := CRC32C(make([]byte, 32)); got != 0x8A9136AA {
		t.Errorf("CRC32C(32 zero bytes) = %#08x, want 0x8a9136aa", got)
	}
	if got := CRC32C(nil); got != 0 {
		t.Errorf("CRC32C(nil) = %#08x, want 0", got)
	}
	for _, n := range []int{1, 7, 64, 1000, 70000} {
		b := noise(uint64(n), n)
		if got, want := CRC32C(b), bitwiseCRC32C(b); got != want {
			t.Errorf("CRC32C of %d bytes = %#08x, reference %#08x", n, got, want)
		}
	}
}
