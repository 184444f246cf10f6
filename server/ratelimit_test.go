package server

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// frozenClock stops the rate limiter's time, so a burst is a burst however
// slowly a loaded machine sends it: no token comes back until the test
// moves the clock.
type frozenClock struct {
	mu sync.Mutex // the handlers read it on their own goroutines
	t  time.Time
}

func (c *frozenClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *frozenClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func freezeClock(s *Server) *frozenClock {
	c := &frozenClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	s.now = c.now
	return c
}

// One connection once sent 2,902 commands in 20 s to the shared cluster.
// A page gets commandBurst commands at once, then commandsPerSecond: the
// rest are refused with an entry naming the limit, sent to that page only,
// and do not run.
func TestWebsocketCommandsAreRateLimitedPerConnection(t *testing.T) {
	s, ts := newTestServer(t)
	clock := freezeClock(s)
	sender, watcher := dial(t, ts), dial(t, ts)
	waitForSubscribers(t, s, 2)
	const refused = 3
	for i := range commandBurst + refused {
		sendCommand(t, sender, fmt.Sprintf("produce orders key=k value=burst-%d partition=0", i))
	}
	for i := range commandBurst + refused {
		u := readUpdate(t, sender)
		if i < commandBurst {
			if !strings.Contains(u.Entry, fmt.Sprintf("produced to orders/0 at offset %d", i)) {
				t.Fatalf("command %d within the burst: %s", i, u.Entry)
			}
			continue
		}
		if !strings.Contains(u.Entry, fmt.Sprintf("rate limit: at most %d commands per second per page", commandsPerSecond)) || u.View != "" {
			t.Fatalf("command %d over the burst: want a refusal naming the limit and no view, got entry %s and a view of %d bytes", i, u.Entry, len(u.View))
		}
	}
	clock.advance(time.Second)
	sendCommand(t, sender, "produce orders key=k value=after-the-wait partition=0")
	for i := range commandBurst {
		if u := readUpdate(t, watcher); !strings.Contains(u.Entry, fmt.Sprintf("value=burst-%d ", i)) {
			t.Fatalf("watcher's update %d: %s", i, u.Entry)
		}
	}
	// The refused commands neither ran nor reached the other page: the
	// next command after the wait lands right after the burst.
	if u := readUpdate(t, watcher); !strings.Contains(u.Entry, fmt.Sprintf("produced to orders/0 at offset %d", commandBurst)) {
		t.Fatalf("the watcher's update after the burst: %s", u.Entry)
	}
}

// POST /api/command is limited per client address the same way, with 429.
func TestAPICommandsAreRateLimitedPerClient(t *testing.T) {
	s, ts := newTestServer(t)
	clock := freezeClock(s)
	json := http.Header{"Content-Type": {"application/json"}}
	for i := range commandBurst {
		if code, body := postCommand(t, ts, json, fmt.Sprintf(`{"line":"produce orders key=k value=api-%d partition=1"}`, i)); code != http.StatusOK {
			t.Fatalf("command %d within the burst: %d %s", i, code, body)
		}
	}
	code, body := postCommand(t, ts, json, `{"line":"produce orders key=k value=refused partition=1"}`)
	if code != http.StatusTooManyRequests || !strings.Contains(body, "rate limit: at most") || !strings.Contains(body, `"ok":false`) {
		t.Fatalf("a command over the burst: %d %s", code, body)
	}
	clock.advance(time.Second)
	if code, body := postCommand(t, ts, json, `{"line":"produce orders key=k value=later partition=1"}`); code != http.StatusOK || !strings.Contains(body, fmt.Sprintf("at offset %d", commandBurst)) {
		t.Fatalf("after the wait (the refused command must not have run): %d %s", code, body)
	}
}

// The API's buckets are per address, and the table of them does not grow
// without end: once it holds clientLimitersKept addresses, those whose
// bucket is full again are forgotten (a fresh bucket is the same), and
// those still draining are kept.
func TestClientLimitersAreForgottenOnceFull(t *testing.T) {
	var c clientLimiters
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range commandBurst {
		if !c.allow("10.0.0.1:1234", t0) {
			t.Fatalf("command %d of the burst refused", i)
		}
	}
	if c.allow("10.0.0.1:5678", t0) {
		t.Fatal("another port of the same address got its own bucket")
	}
	if !c.allow("10.0.0.2:1234", t0) {
		t.Fatal("another address shares the first one's bucket")
	}
	for i := range clientLimitersKept {
		c.allow(fmt.Sprintf("192.168.%d.%d:1", i/256, i%256), t0)
	}
	if len(c.m) <= clientLimitersKept {
		t.Fatalf("the table holds %d addresses; the test meant to fill it", len(c.m))
	}
	// Long enough for one token, not for a full bucket of the drained
	// 10.0.0.1: every address that took one token is full again.
	later := t0.Add(time.Second / commandsPerSecond)
	c.allow("172.16.0.1:1", later)
	if _, kept := c.m["10.0.0.1"]; !kept {
		t.Error("the drained address was forgotten: its client would get a fresh burst")
	}
	if len(c.m) > 3 {
		t.Errorf("the table still holds %d addresses after pruning", len(c.m))
	}
}
