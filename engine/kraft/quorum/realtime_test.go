package quorum

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// Raft runs on real time. On a loaded machine a leader's heartbeats can
// come a lease (T = 50 ms) late, and raft elects another leader on its own
// (the simulation hands the leadership back: cluster.FollowQuorum). A test
// whose step assumes "controller 1 still leads" first makes that true
// (leadBy), and watches, through the quorum's hooks, which controller led
// at each fault and which leaders were elected after it. A run in which
// raft elected a leader the scenario does not explain was disturbed by
// real time: it says why, and the test runs the scenario again, a bounded
// number of times. A run that was not disturbed asserts everything the
// scenario asserts, and a leader the scenario's own step elected (the
// successor after a crash, the majority's after a partition) is never
// excused: only elections after it are.

// attempts bounds how often a disturbed scenario runs.
const attempts = 5

// watch records what the quorum's hooks report.
type watch struct {
	mu      sync.Mutex
	leaders []elected // leaders controllers learned of, in order
	faults  []int     // the leader at each Crash or Partition
	lost    []int     // controllers that stopped knowing a leader, in order
}

// elected is a controller learning that id leads, in term.
type elected struct {
	id   int
	term uint64
}

// mark is a point in w's history: leaders learned of after it, in a term
// after it, were elected after it (a controller may learn of an earlier
// leader late).
type mark struct {
	leaders, lost int
	term          uint64
}

// config is cfg with w's hooks.
func (w *watch) config(cfg Config) Config {
	cfg.hooks = &hooks{
		elected: func(id int, term uint64) {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.leaders = append(w.leaders, elected{id, term})
		},
		lost: func(id int) {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.lost = append(w.lost, id)
		},
		fault: func(leader int) {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.faults = append(w.faults, leader)
		},
	}
	return cfg
}

// mark is now, in w's history and in q's terms.
func (w *watch) mark(q *Quorum) mark {
	var term uint64
	for _, s := range q.Status() {
		term = max(term, s.Term)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return mark{len(w.leaders), len(w.lost), term}
}

// lostSince lists the controllers, except those in not, that stopped
// knowing a leader after m.
func (w *watch) lostSince(m mark, not ...int) []int {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []int
	for _, id := range w.lost[m.lost:] {
		if !slices.Contains(not, id) && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// since lists the leaders learned of after mark, each once, in order,
// except not (the leader at mark).
func (w *watch) since(m mark, not int) []int {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []int
	for _, e := range w.leaders[m.leaders:] {
		if e.term > m.term && e.id != not && !slices.Contains(out, e.id) {
			out = append(out, e.id)
		}
	}
	return out
}

// lastFault is the controller that led when the last fault took effect.
func (w *watch) lastFault() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.faults) == 0 {
		return -1
	}
	return w.faults[len(w.faults)-1]
}

// electedSince waits (up to wait) for a leader, and until w has heard of
// it when it is not the leader at mark; it returns the leaders elected
// since mark (see since).
func (w *watch) electedSince(t *testing.T, q *Quorum, m mark, not int) []int {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		l := q.Leader()
		got := w.since(m, not)
		if l != 0 && (l == not || slices.Contains(got, l)) {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("within %s: leader %d, leaders elected since the step %v", wait, l, got)
		}
		time.Sleep(time.Millisecond)
	}
}

// leadBy makes controller id the leader, should real time have moved the
// leadership (raft's leadership transfer, as cluster.FollowQuorum does),
// and waits until it is active. It says whether it had to.
func leadBy(t *testing.T, q *Quorum, id int) bool {
	t.Helper()
	l := q.Leader()
	if l == id {
		if _, err := q.activeController(wait); err == nil && q.Leader() == id {
			return false
		}
	}
	t.Logf("real time moved the leadership to %d before a step that needs %d: handing it back", l, id)
	deadline := time.Now().Add(wait)
	for q.Leader() != id {
		if err := q.TransferLeadership(id); err != nil {
			t.Logf("handing the leadership to %d: %v", id, err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("controller %d did not take the leadership back within %s (leader %d)", id, wait, q.Leader())
		}
	}
	if _, err := q.activeController(wait); err != nil {
		t.Fatal(err)
	}
	return true
}

// undisturbed runs scenario until a run was not disturbed by real time
// (scenario returns "") and fails when every one of attempts runs was.
// Every disturbance is logged with "disturbed by real time".
func undisturbed(t *testing.T, scenario func(t *testing.T, w *watch) string) {
	t.Helper()
	var whys []string
	for i := 1; i <= attempts; i++ {
		why := scenario(t, &watch{})
		if t.Failed() {
			return
		}
		if why == "" {
			return
		}
		t.Logf("attempt %d of %d disturbed by real time, running the scenario again: %s", i, attempts, why)
		whys = append(whys, why)
	}
	t.Fatalf("real time disturbed all %d attempts, nothing was checked: %v", attempts, whys)
}

// openQuorum is newQuorum for one attempt: its caller closes it.
func openQuorum(t *testing.T, w *watch, cfg Config) *Quorum {
	t.Helper()
	return newQuorum(t, w.config(cfg))
}

// tookOver checks who took over after a step (since m): a fault (crash or
// partition) of leader from, or, with from 0, a restart that brings a
// majority back. The step's own election must elect want; a disturbance is
// a fault while another controller led (see faultFound), or any election
// after want's.
func tookOver(t *testing.T, q *Quorum, w *watch, m mark, from, want int, step string) (why string, ok bool) {
	t.Helper()
	return tookOverFrom(t, q, w, m, from, []int{from}, want, step)
}

// tookOverFrom is tookOver where the fault may find any leader in
// found. Partition makes the same election whether the leader it cuts off
// just lost its lease or not (the majority side's first in succession
// campaigns), so a partition test accepts a quorum between two leaders.
func tookOverFrom(t *testing.T, q *Quorum, w *watch, m mark, from int, found []int, want int, step string) (why string, ok bool) {
	t.Helper()
	if l := w.lastFault(); from > 0 && !slices.Contains(found, l) {
		return fmt.Sprintf("controller %d, not %d, led at the %s (controllers %v had stopped hearing from a leader)", l, from, step, w.lostSince(m)), false
	}
	elected := w.electedSince(t, q, m, from)
	if len(elected) == 0 {
		t.Errorf("no controller was elected after the %s; leader %d", step, q.Leader())
		return "", false
	}
	if elected[0] != want {
		t.Errorf("controller %d took over after the %s, want %d (elected since: %v)", elected[0], step, want, elected)
		return "", false
	}
	if len(elected) > 1 {
		return fmt.Sprintf("after controller %d took over at the %s, raft elected %v on its own", want, step, elected[1:]), false
	}
	return "", true
}

// keptLeader checks that leader still leads after a step (since mark)
// that must not move the leadership, such as a restart of returning. A
// leader elected since is a disturbance when a controller other than
// leader and returning stopped knowing a leader first (its heartbeat
// timed out: the leader's heartbeats came late, or it lost its lease);
// returning cannot take the leadership without that unless the code hands
// it over, so then it fails.
func keptLeader(t *testing.T, q *Quorum, w *watch, m mark, leader, returning int, step string) (why string, ok bool) {
	t.Helper()
	elected := w.electedSince(t, q, m, leader)
	if len(elected) > 0 {
		if lost := w.lostSince(m, leader, returning); len(lost) > 0 {
			return fmt.Sprintf("after the %s controllers %v stopped hearing from leader %d and raft elected %v on its own", step, lost, leader, elected), false
		}
		t.Errorf("after the %s raft elected %v while every other controller still followed %d (leader now %d)", step, elected, leader, q.Leader())
		return "", false
	}
	if l := q.Leader(); l != leader {
		t.Errorf("leader %d after the %s, want %d", l, step, leader)
		return "", false
	}
	return "", true
}
