package sim

import (
	"container/heap"
	"fmt"
	"math"
	"time"
)

// Scheduler is the simulation's single event queue: timers and message
// deliveries, ordered by virtual time and then by the order they were
// scheduled, so that equal times resolve the same way on every run. Nothing
// happens in the engine except by an event popped from here.
type Scheduler struct {
	Clock *Clock
	queue eventQueue
	seq   uint64
}

// Event is something due at a virtual instant.
type Event struct {
	At   time.Duration // virtual time since the start
	Seq  uint64
	Name string // for traces: "timer replica-lag b1", "deliver Fetch b2->b1"
	Fire func()
	// Cancelled events stay queued but do nothing when popped.
	Cancelled bool
}

// never is when an event due after MaxElapsed is queued: it never runs.
const never = time.Duration(math.MaxInt64)

// NewScheduler returns a scheduler driving clock.
func NewScheduler(clock *Clock) *Scheduler { return &Scheduler{Clock: clock} }

// After schedules fire to run d after now and returns the event, which the
// caller may cancel.
func (s *Scheduler) After(d time.Duration, name string, fire func()) *Event {
	if d < 0 {
		d = 0
	}
	at := s.Clock.Elapsed() + d
	if d > s.Clock.Room() {
		// Past the end of virtual time (a timer of Long.MAX_VALUE ms, say):
		// it never fires, and the sum must not wrap into the past.
		at = never
	}
	s.seq++
	e := &Event{At: at, Seq: s.seq, Name: name, Fire: fire}
	heap.Push(&s.queue, e)
	return e
}

// Next is the time of the next live event, and whether there is one. An
// event due after MaxElapsed never runs: the clock stops there.
func (s *Scheduler) Next() (time.Duration, bool) {
	s.dropCancelled()
	if len(s.queue) == 0 || s.queue[0].At > MaxElapsed {
		return 0, false
	}
	return s.queue[0].At, true
}

func (s *Scheduler) dropCancelled() {
	for len(s.queue) > 0 && s.queue[0].Cancelled {
		heap.Pop(&s.queue)
	}
}

// Step runs the next event, advancing the clock to it. It reports false
// when nothing is scheduled.
func (s *Scheduler) Step() (*Event, bool) {
	if _, ok := s.Next(); !ok {
		return nil, false
	}
	e := heap.Pop(&s.queue).(*Event)
	if e.At > s.Clock.Elapsed() {
		s.Clock.Advance(e.At - s.Clock.Elapsed())
	}
	e.Fire()
	return e, true
}

// RunUntil runs every event due at or before t, then sets the clock to t.
// It returns how many events ran.
func (s *Scheduler) RunUntil(t time.Duration, limit int) (int, error) {
	if err := s.Clock.CheckAdvance(t - s.Clock.Elapsed()); t > s.Clock.Elapsed() && err != nil {
		return 0, err
	}
	n := 0
	for {
		at, ok := s.Next()
		if !ok || at > t {
			break
		}
		if n >= limit {
			return n, fmt.Errorf("more than %d events before %v: the simulation does not settle", limit, t)
		}
		s.Step()
		n++
	}
	if t > s.Clock.Elapsed() {
		s.Clock.Advance(t - s.Clock.Elapsed())
	}
	return n, nil
}

// Pending counts queued live events.
func (s *Scheduler) Pending() int {
	n := 0
	for _, e := range s.queue {
		if !e.Cancelled {
			n++
		}
	}
	return n
}

type eventQueue []*Event

func (q eventQueue) Len() int { return len(q) }
func (q eventQueue) Less(i, j int) bool {
	if q[i].At != q[j].At {
		return q[i].At < q[j].At
	}
	return q[i].Seq < q[j].Seq
}
func (q eventQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *eventQueue) Push(x any)   { *q = append(*q, x.(*Event)) }
func (q *eventQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}
