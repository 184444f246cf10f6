// Command wasm is the browser driver: built with GOOS=js GOARCH=wasm it runs
// the whole engine inside the page and renders web's components there.
//
// session.go holds the part that does not need JavaScript, so it is tested
// natively; main_js.go bridges it to the page.
package main

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/loglab/loglab/engine/lab"
	"github.com/loglab/loglab/web"
)

// update is what one command gives the page, the same shape the live server
// pushes: the transcript entry and the new cluster view as HTML fragments.
type update struct {
	Output string
	OK     bool
	Entry  string
	View   string
}

// session is one learner's lab. Calls are serialised: the JS glue chains
// them, and the mutex makes that a guarantee rather than a convention.
type session struct {
	mu  sync.Mutex
	lab *lab.Lab
}

func newSession() *session {
	l := lab.New()
	l.SetPace(newPacer(10*time.Millisecond, time.Millisecond).pace)
	return &session{lab: l}
}

// pacer yields the thread during long simulations. In WASM, goroutines
// run only when the running one blocks, and timers fire only when the
// module returns to the JavaScript event loop; raft's heartbeats are such
// timers. So at most every budget of work the simulation sleeps briefly,
// which returns to the event loop: ~20 ms of unbroken work was measured
// to be enough to cause elections.
type pacer struct {
	budget, nap time.Duration
	since       time.Time
}

func newPacer(budget, nap time.Duration) *pacer {
	return &pacer{budget: budget, nap: nap, since: time.Now()}
}

func (p *pacer) pace() {
	if time.Since(p.since) < p.budget {
		return
	}
	time.Sleep(p.nap)
	p.since = time.Now()
}

func (s *session) run(line string) update {
	s.mu.Lock()
	defer s.mu.Unlock()
	out, err := s.lab.Run(line)
	u := update{Output: out, OK: err == nil}
	if err != nil {
		u.Output = "error: " + err.Error()
	}
	ctx := context.Background()
	view, viewErr := web.RenderString(ctx, web.ClusterView(s.lab.View()))
	if viewErr != nil {
		// Rendering plain values cannot fail short of a bug; say so in the
		// transcript rather than leave a stale picture without a word.
		u.Output += "\nerror: rendering the cluster view: " + viewErr.Error()
		u.OK = false
	}
	u.View = view
	u.Entry, _ = web.RenderString(ctx, web.TranscriptEntry(web.Entry{Command: strings.TrimSpace(line), Output: u.Output, OK: u.OK}))
	return u
}

// followQuorum hands the raft leadership back to the active controller
// when raft moved it on its own since the last command (a busy tab, a
// garbage collection in WASM's one thread), and returns the view drawn
// afterwards; "" when raft and the simulation agree. The page calls it
// now and then, between commands, so an idle lab never shows them
// disagreeing for long.
func (s *session) followQuorum() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.lab.Cluster()
	if c == nil || !c.QuorumDrifted() {
		return ""
	}
	view, err := web.RenderString(context.Background(), web.ClusterView(s.lab.View()))
	if err != nil {
		return ""
	}
	return view
}
