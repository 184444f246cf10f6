package loadtest

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// instructorCluster is the id of the instructor's cluster.
const instructorCluster = "live"

// script is what one driver types into one cluster: setup once, then the
// loop's lines one after the other, one every period, until the run ends.
type script struct {
	setup  []string
	loop   []string
	period time.Duration
}

// instructorScript keeps a producer and a consumer group busy on the
// starter topic (orders, 3 partitions): small records, polls that wait
// little, so the cluster stays far below its 8 MiB bound for an hour.
func instructorScript(period time.Duration) script {
	return script{
		setup: []string{
			"producer create load-producer linger.ms=5",
			"consumer create load-c1 topics=orders group=load-group",
			"consumer create load-c2 topics=orders group=load-group",
		},
		loop: []string{
			"produce orders key=k{i} value=order-{i} count=10 producer=load-producer",
			"poll load-c1 timeout=100ms",
			"poll load-c2 timeout=100ms",
		},
		period: period,
	}
}

// participantScript is a participant trying the basics on their own
// cluster: a topic, a producer, a consumer in a group.
func participantScript(period time.Duration) script {
	return script{
		setup: []string{
			"topic create events partitions=2 rf=3",
			"producer create p",
			"consumer create c topics=events group=g",
		},
		loop: []string{
			"produce events value=event-{i} count=5 producer=p",
			"poll c timeout=100ms",
		},
		period: period,
	}
}

// commandStats counts what the drivers' commands came back with.
type commandStats struct {
	mu         sync.Mutex
	ok         int
	failed     int // the lab refused or failed the command (ok=false)
	throttled  int // 429: a rate limit
	refused    int // 403: a role the driver should have had
	errors     int // 5xx or no answer: a server failure
	roundTrips []float64
	notes      []string // the first few failures, for the report
}

const notesKept = 8

func (s *commandStats) note(format string, args ...any) {
	if len(s.notes) < notesKept {
		s.notes = append(s.notes, fmt.Sprintf(format, args...))
	}
}

// run sends one command and counts its outcome; it reports whether the
// lab ran it successfully.
func (s *commandStats) run(ctx context.Context, c *apiClient, cluster, line string, clock *commandClock) bool {
	if clock != nil {
		clock.sending()
	}
	start := time.Now()
	r, err := c.command(ctx, cluster, line)
	rt := float64(time.Since(start).Microseconds()) / 1000
	s.mu.Lock()
	defer s.mu.Unlock()
	switch status := statusOf(err); {
	case err == nil:
		s.roundTrips = append(s.roundTrips, rt)
		if r.OK {
			s.ok++
			return true
		}
		s.failed++
		if strings.Contains(r.Output, "internal error") {
			// A panic the session recovered from: a server bug.
			s.errors++
		}
		s.note("%s: %q: %s", cluster, line, firstLine(r.Output))
	case ctx.Err() != nil:
		// The run ended while the command was in flight.
	case status == http.StatusTooManyRequests:
		s.throttled++
	case status == http.StatusForbidden:
		s.refused++
		s.note("%s: %q refused: %v", cluster, line, err)
	default:
		s.errors++
		s.note("%s: %q: %v", cluster, line, err)
	}
	return false
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// setup runs a script's setup lines; it reports whether all ran.
func (s *commandStats) setup(ctx context.Context, c *apiClient, cluster string, sc script) bool {
	all := true
	for _, line := range sc.setup {
		if !s.run(ctx, c, cluster, line, nil) {
			all = false
		}
	}
	return all
}

// loop types the script's loop lines (as they are: {i} in a produce is
// the lab's own counter), one every period, starting after
// offset (so that twenty participants do not all type at the same
// instant), until ctx ends.
func (s *commandStats) loop(ctx context.Context, c *apiClient, cluster string, sc script, offset time.Duration, clock *commandClock) {
	select {
	case <-time.After(offset):
	case <-ctx.Done():
		return
	}
	t := time.NewTicker(sc.period)
	defer t.Stop()
	for i := 0; ; i++ {
		line := sc.loop[i%len(sc.loop)]
		s.run(ctx, c, cluster, line, clock)
		select {
		case <-t.C:
		case <-ctx.Done():
			return
		}
	}
}
