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

// Cases mirror BuiltInPartitioner.updatePartitionInfo: switch once
// batch.size bytes went to the partition and its batch is full, or twice
// batch.size whatever the batch.
func TestStickyPartitionerSwitchesLikeBuiltInPartitioner(t *testing.T) {
	all := []int{0, 1, 2, 3}
	cases := []struct {
		name     string
		appends  []int  // bytes per record
		full     []bool // allBatchesFull after each
		switched bool
	}{
		{"under batch.size", []int{40, 40}, []bool{false, false}, false},
		{"batch.size reached, batch not full", []int{60, 60}, []bool{false, false}, false},
		{"batch.size reached and batch full", []int{60, 60}, []bool{false, true}, true},
		{"full batch but under batch.size", []int{60}, []bool{true}, false},
		{"twice batch.size, batch not full", []int{100, 100}, []bool{false, false}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := NewStickyPartitioner()
			p.BatchSize = 100
			// Only the next partition has a leader: a switch cannot land on the first.
			rng := sim.NewRand(1)
			first := p.Partition("t", all, 4, rng)
			for i, n := range c.appends {
				p.Appended("t", n, c.full[i], []int{(first + 1) % 4}, 4, rng)
			}
			got := p.Partition("t", all, 4, rng)
			if switched := got != first; switched != c.switched {
				t.Fatalf("partition %d then %d: switched=%v, want %v", first, got, switched, c.switched)
			}
		})
	}
}

// BuiltInPartitioner.nextPartition picks among partitions with a leader.
func TestStickyPartitionerPicksOnlyPartitionsWithALeader(t *testing.T) {
	p := NewStickyPartitioner()
	p.BatchSize = 10
	rng := sim.NewRand(3)
	for i := range 50 {
		got := p.Partition("t", []int{2}, 4, rng)
		if i > 0 && got != 2 {
			t.Fatalf("switch %d went to partition %d, the only one with a leader is 2", i, got)
		}
		p.Appended("t", 10, true, []int{2}, 4, rng)
	}
}
