package offsets

import "testing"

// Cases mirror GroupCoordinatorService.partitionFor:
// Utils.abs(groupId.hashCode()) % numPartitions. Hashes are worked out from
// Java's definition, h = 31*h + c over UTF-16 code units with int32
// wrap-around; the longer ones were checked with an independent Python
// implementation over s.encode("utf-16-be").
func TestPartitionFor(t *testing.T) {
	for _, tc := range []struct {
		group string
		hash  int32
		n     int32
		want  int32
	}{
		// Empty string: no code units, hash 0.
		{"", 0, 50, 0},
		// 'a' = 97; 97 % 50 = 47.
		{"a", 97, 50, 47},
		// 97*31 + 98 = 3105; 3105 % 50 = 5.
		{"ab", 3105, 50, 5},
		// "Aa" and "BB" collide in Java (65*31+97 = 66*31+66 = 2112), so
		// they share a coordinator: 2112 % 50 = 12.
		{"Aa", 2112, 50, 12},
		{"BB", 2112, 50, 12},
		// Non-ASCII in the BMP is one code unit: 'é' = U+00E9 = 233.
		{"é", 233, 50, 33},
		// '组' = U+7EC4 = 32452; 32452 % 50 = 2.
		{"组", 32452, 50, 2},
		// U+1F600 is the surrogate pair D83D DE00 in UTF-16:
		// 55357*31 + 56832 = 1772899; % 50 = 49. Hashing the rune
		// 0x1F600 as one unit would give 128512 % 50 = 12.
		{"😀", 1772899, 50, 49},
		// Negative hash: 'z' = 122, 122*(31^5+31^4+31^3+31^2+31+1)
		// = 122*29583456 = 3609181632, minus 2^32 = -685785664;
		// abs % 50 = 14.
		{"zzzzzz", -685785664, 50, 14},
		// The classic string whose hashCode is Integer.MIN_VALUE:
		// Math.abs would stay negative, Utils.abs gives 0.
		{"polygenelubricants", -1 << 31, 50, 0},
		{"my-group", -1906497762, 50, 12},
		{"my-group", -1906497762, 7, 1906497762 % 7},
		{"orders", -1008770331, 50, 31},
		{"payments-service", 332086293, 50, 43},
		{"anything", javaStringHash("anything"), 1, 0},
	} {
		if got := javaStringHash(tc.group); got != tc.hash {
			t.Errorf("hashCode(%q) = %d, want %d", tc.group, got, tc.hash)
		}
		if got := PartitionFor(tc.group, tc.n); got != tc.want {
			t.Errorf("PartitionFor(%q, %d) = %d, want %d", tc.group, tc.n, got, tc.want)
		}
	}
}
