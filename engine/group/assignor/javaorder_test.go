package assignor

import (
	"slices"
	"testing"
)

// Well-known JVM values: "hello".hashCode() == 99162322, and
// "polygenelubricants" overflows to exactly Integer.MIN_VALUE.
func TestJavaStringHash(t *testing.T) {
	for s, want := range map[string]int32{"": 0, "hello": 99162322, "polygenelubricants": -2147483648} {
		if got := int32(javaStringHash(s)); got != want {
			t.Errorf("javaStringHash(%q) = %d, want %d", s, got, want)
		}
	}
}

// consumer1..3 hash to consecutive values; after Java's spread
// (h ^ h>>>16) consumer2 lands in an earlier bucket than consumer1, which
// is why Kafka's testMaxQuotaConsumerMoreThanNumExpectedMaxCapacityMembers
// expects consumer2, not consumer1, to keep two partitions.
func TestJavaHashMapOrder(t *testing.T) {
	got := javaHashMapOrder([]string{"consumer1", "consumer2", "consumer3"})
	if i1, i2 := slices.Index(got, "consumer1"), slices.Index(got, "consumer2"); i2 > i1 {
		t.Errorf("order %v: want consumer2 before consumer1", got)
	}
}
