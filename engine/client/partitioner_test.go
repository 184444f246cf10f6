package client

import (
	"testing"

	"github.com/loglab/loglab/engine/sim"
)

// The expected values are the ones in Kafka's own UtilsTest.testMurmur2.
func TestMurmur2MatchesKafka(t *testing.T) {
	cases := []struct {
		in   []byte
		want int32
	}{
		{[]byte("21"), -973932308},
		{[]byte("foobar"), -790332482},
		{[]byte("a-little-bit-long-string"), -985981536},
		{[]byte("a-little-bit-longer-string"), -1486304829},
		{[]byte("lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8"), -58897971},
		{[]byte{'a', 'b', 'c'}, 479470107},
	}
	for _, c := range cases {
		if got := Murmur2(c.in); got != c.want {
			t.Errorf("Murmur2(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}

func TestKeyPartitionIsStableAndInRange(t *testing.T) {
	for _, key := range []string{"", "a", "order-1", "foobar"} {
		p := KeyPartition([]byte(key), 3)
		if p < 0 || p >= 3 {
			t.Fatalf("key %q went to partition %d of 3", key, p)
		}
		if again := KeyPartition([]byte(key), 3); again != p {
			t.Fatalf("key %q went to %d then %d", key, p, again)
		}
	}
	// toPositive(-790332482) % 3, worked out by hand from Kafka's definition.
	if got, want := KeyPartition([]byte("foobar"), 3), int((-790332482&0x7fffffff)%3); got != want {
		t.Fatalf("foobar went to partition %d, want %d", got, want)
	}
}

func TestStickyPartitionerSticksThenSwitches(t *testing.T) {
	p := NewStickyPartitioner()
	p.BatchSize = 100
	rng := sim.NewRand(7)
	first := p.Partition("t", 4, 40, rng)
	if again := p.Partition("t", 4, 40, rng); again != first {
		t.Fatalf("second record went to %d, want to stick to %d", again, first)
	}
	p.Partition("t", 4, 40, rng) // now 120 bytes: the batch is full
	if next := p.Partition("t", 4, 40, rng); next == first {
		t.Fatalf("after a full batch the partitioner stayed on %d", first)
	}
}
