package sim

import (
	"testing"
	"time"
)

func TestClockAdvances(t *testing.T) {
	var c Clock
	if got := c.NowMs(); got != Epoch.UnixMilli() {
		t.Fatalf("a new clock reads %d, want the epoch %d", got, Epoch.UnixMilli())
	}
	if err := c.Advance(1500 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if got, want := c.NowMs()-Epoch.UnixMilli(), int64(1500); got != want {
		t.Fatalf("after 1.5s the clock moved %dms, want %d", got, want)
	}
	if err := c.Advance(-time.Second); err == nil {
		t.Fatal("moving the clock backwards succeeded")
	}
	if c.Elapsed() != 1500*time.Millisecond {
		t.Fatalf("a refused move changed the clock to %v", c.Elapsed())
	}
}

func TestSameSeedSameSequence(t *testing.T) {
	a, b, other := NewRand(42), NewRand(42), NewRand(43)
	differs := false
	for range 100 {
		x, y, z := a.Uint64(), b.Uint64(), other.Uint64()
		if x != y {
			t.Fatalf("seed 42 gave %d and %d", x, y)
		}
		if x != z {
			differs = true
		}
	}
	if !differs {
		t.Fatal("seeds 42 and 43 produced the same 100 numbers")
	}
}
