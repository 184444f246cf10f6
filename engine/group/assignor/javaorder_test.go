package assignor

import (
	"slices"
	"testing"
)

// JVM values: "hello".hashCode() == 99162322, "polygenelubricants"
// overflows to exactly Integer.MIN_VALUE, "consumer1" as a JVM printed it.
func TestJavaStringHash(t *testing.T) {
	for s, want := range map[string]int32{"": 0, "hello": 99162322, "polygenelubricants": -2147483648, "consumer1": -421004549} {
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

// The order a JVM (OpenJDK) printed for new HashMap<>() after putting these
// 17 keys (capacity 32 after one resize).
func TestJavaHashMapOrderMatchesJVM(t *testing.T) {
	ids := []string{"consumer1", "consumer2", "consumer3", "c01", "c02", "c03", "c04", "c05", "c06", "c07", "c08", "c09", "c10", "c11", "c12", "c13", "c14"}
	want := []string{"c11", "c10", "c02", "c13", "c01", "c12", "c04", "c03", "c14", "c06", "c05", "c08", "c07", "c09", "consumer3", "consumer2", "consumer1"}
	if got := javaHashMapOrder(ids); !slices.Equal(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}
