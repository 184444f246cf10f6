package server

import (
	"fmt"
	"net"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// A workshop's thirty pages share one cluster and one mutex: one page that
// loops (a script, a stuck key, 2,902 commands in 20 s once) would hold
// everyone else's commands and updates up. So each page gets a token
// bucket: commandBurst commands at once, then commandsPerSecond, far more
// than anyone types or clicks.
const (
	commandsPerSecond = 10
	commandBurst      = 10
	// clientLimitersKept bounds the per-address limiters of POST
	// /api/command; beyond it, addresses whose bucket is full again (idle
	// for a second) are forgotten.
	clientLimitersKept = 1024
)

// A lesson action that replays the lesson (open, back, reset, goto) holds
// the room's mutex for the whole replay, a few hundred milliseconds for a
// long lesson, and sends every page the replayed transcript. Pages loop
// from many connections as easily as from one, so replays have one bucket
// for the whole room: an instructor clicking Back a few times in a row is
// never refused, a loop cannot hold the room more than a fraction of the
// time.
const (
	lessonReplaysPerSecond = 1
	lessonReplayBurst      = 10
)

func newLessonReplayLimiter() *rate.Limiter {
	return rate.NewLimiter(lessonReplaysPerSecond, lessonReplayBurst)
}

// replaysLesson reports whether a lesson action rebuilds the lab by replay.
func replaysLesson(action string) bool {
	switch action {
	case "open", "back", "reset", "goto":
		return true
	}
	return false
}

// rateLimitMessage is the error entry of a refused command, for a page
// ("per page") or an API client ("per client address").
func rateLimitMessage(per string) string {
	return fmt.Sprintf("error: rate limit: at most %d commands per second per %s (bursts of %d); the command did not run: wait a moment", commandsPerSecond, per, commandBurst)
}

func newCommandLimiter() *rate.Limiter {
	return rate.NewLimiter(commandsPerSecond, commandBurst)
}

// clientLimiters are buckets, one per remote address: POST /api/command's
// (the zero value: commandsPerSecond, commandBurst), or page loads'.
type clientLimiters struct {
	perSecond rate.Limit
	burst     int // 0: the command budget

	mu sync.Mutex
	m  map[string]*rate.Limiter
}

// limits are the bucket's rate and burst.
func (c *clientLimiters) limits() (rate.Limit, int) {
	if c.burst == 0 {
		return commandsPerSecond, commandBurst
	}
	return c.perSecond, c.burst
}

// clientHost is a request's client address without its port.
func clientHost(remoteAddr string) string {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		return remoteAddr
	}
	return host
}

// allow takes a token from remoteAddr's bucket at now.
func (c *clientLimiters) allow(remoteAddr string, now time.Time) bool {
	host := clientHost(remoteAddr)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string]*rate.Limiter)
	}
	every, burst := c.limits()
	l := c.m[host]
	if l == nil {
		if len(c.m) >= clientLimitersKept {
			for h, x := range c.m {
				// A full bucket is what a new limiter would be: forgetting
				// it changes nothing for its client.
				if x.TokensAt(now) >= float64(burst) {
					delete(c.m, h)
				}
			}
		}
		l = rate.NewLimiter(every, burst)
		c.m[host] = l
	}
	return l.AllowN(now, 1)
}
