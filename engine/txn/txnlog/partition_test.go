package txnlog

import "testing"

// Expected partitions worked out from java.lang.String.hashCode by hand:
// "a".hashCode = 97; "ab" = 97*31+98 = 3105; "txn-1" = 110810510
// (t=116 x=120 n=110 '-'=45 '1'=49: 116*31+120 = 3716, *31+110 = 115306,
// *31+45 = 3574531, *31+49 = 110810510).
// "polygenelubricants".hashCode is Integer.MIN_VALUE, which Utils.abs maps
// to 0 rather than leaving it negative.
func TestPartitionFor(t *testing.T) {
	for _, tc := range []struct {
		id   string
		n    int32
		want int32
	}{
		{"a", 50, 97 % 50},
		{"ab", 50, 3105 % 50},
		{"txn-1", 50, 110810510 % 50},
		{"txn-1", 3, 110810510 % 3},
		{"polygenelubricants", 50, 0},
	} {
		if got := PartitionFor(tc.id, tc.n); got != tc.want {
			t.Errorf("PartitionFor(%q, %d) = %d, want %d", tc.id, tc.n, got, tc.want)
		}
	}
}
