package sim

import (
	"math"
	"strings"
	"testing"
	"time"
)

// The clock stops at MaxElapsed: a move past it is refused, names the
// limit, and leaves the time as it was (a wrapped clock would run fencing
// and session timeouts backwards for good).
func TestClockRefusesToPassItsMaximum(t *testing.T) {
	cases := []struct {
		name       string
		at, moveBy time.Duration
		ok         bool
	}{
		{"to exactly the maximum", 0, MaxElapsed, true},
		{"from near the end to the end", MaxElapsed - time.Second, time.Second, true},
		{"one nanosecond past", MaxElapsed - time.Second, time.Second + 1, false},
		{"at the end, zero", MaxElapsed, 0, true},
		{"at the end, any further", MaxElapsed, 1, false},
		{"the largest Duration, which would wrap", time.Hour, math.MaxInt64, false},
		{"backwards", time.Hour, -1, false},
	}
	for _, c := range cases {
		clock := Clock{elapsed: c.at}
		err := clock.Advance(c.moveBy)
		if (err == nil) != c.ok {
			t.Errorf("%s: Advance(%v) from %v: err %v, want ok=%v", c.name, c.moveBy, c.at, err, c.ok)
			continue
		}
		want := c.at
		if c.ok {
			want += c.moveBy
		}
		if clock.Elapsed() != want {
			t.Errorf("%s: the clock reads %v, want %v", c.name, clock.Elapsed(), want)
		}
		if err != nil && c.moveBy > 0 && !strings.Contains(err.Error(), "maximum of 100 years (876000h0m0s)") {
			t.Errorf("%s: error %q does not name the limit", c.name, err)
		}
	}
}

// A timer due after MaxElapsed never fires, and one set so far ahead that
// now+d would overflow does not wrap into the past and fire at once.
func TestSchedulerRunsNothingPastTheMaximum(t *testing.T) {
	clock := &Clock{elapsed: MaxElapsed - time.Second}
	s := NewScheduler(clock)
	var fired []string
	s.After(time.Second, "at the end", func() { fired = append(fired, "at the end") })
	s.After(time.Second+1, "past the end", func() { fired = append(fired, "past the end") })
	s.After(math.MaxInt64, "would wrap", func() { fired = append(fired, "would wrap") })
	for {
		if _, ok := s.Step(); !ok {
			break
		}
	}
	if len(fired) != 1 || fired[0] != "at the end" {
		t.Fatalf("fired %v, want only the event due at the maximum", fired)
	}
	if clock.Elapsed() != MaxElapsed {
		t.Fatalf("the clock reads %v, want the maximum %v", clock.Elapsed(), MaxElapsed)
	}
	if _, err := s.RunUntil(MaxElapsed+time.Second, 10); err == nil {
		t.Fatal("RunUntil past the maximum succeeded")
	}
	if clock.Elapsed() != MaxElapsed {
		t.Fatalf("a refused RunUntil moved the clock to %v", clock.Elapsed())
	}
}
