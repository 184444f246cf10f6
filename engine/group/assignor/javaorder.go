package assignor

import (
	"cmp"
	"slices"
	"unicode/utf16"
)

// javaHashMapOrder orders member ids the way a java.util.HashMap<String, _>
// holding them iterates: by bucket, the bucket being the spread
// String.hashCode masked by the table size. Kafka's sticky assignor walks
// its members in that order where the order decides the outcome (which
// members keep an extra partition), so following it gives the assignment
// a real Kafka leader computes for the same member ids. Ids sharing a
// bucket iterate in insertion order in Java; we order those by id, so the
// result never depends on the order members arrive in.
func javaHashMapOrder(ids []string) []string {
	// the table doubles whenever it is more than 3/4 full, from 16
	capacity := 16
	for len(ids) > capacity*3/4 {
		capacity *= 2
	}
	bucket := func(id string) int {
		h := javaStringHash(id)
		return int((h ^ (h >> 16)) & uint32(capacity-1))
	}
	out := slices.Clone(ids)
	slices.SortFunc(out, func(a, b string) int {
		return cmp.Or(cmp.Compare(bucket(a), bucket(b)), cmp.Compare(a, b))
	})
	return out
}

// javaStringHash is Java's String.hashCode: s[0]*31^(n-1) + ... + s[n-1]
// over UTF-16 code units, in 32-bit arithmetic.
func javaStringHash(s string) uint32 {
	var h uint32
	for _, u := range utf16.Encode([]rune(s)) {
		h = 31*h + uint32(u)
	}
	return h
}
