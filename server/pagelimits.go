package server

import (
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/labstack/echo/v4"
)

// Page connections and page loads, bounded. Every open websocket is a
// descriptor and a page the server renders each update for (deflated
// once per page): 20,000 connections that never read, from two loopback
// addresses and no login, ran the server out of descriptors in 15 s, and
// 2,000 of them took a participant's command from 2 ms to 1.28 s. So
// each client address may hold a few dozen pages, the server a room's
// worth, and a page load (which draws the whole view under the cluster's
// lock) is a budget of its own per address.
const (
	// DefaultMaxPagesPerAddress bounds the websockets one client address
	// holds: a participant's tabs, or a handful of laptops behind one NAT.
	DefaultMaxPagesPerAddress = 64
	// DefaultMaxPages bounds every websocket of the server: 60
	// participants with a few tabs each, and the loadtest's 200 pages,
	// with room. It stays under the 30% of the descriptor limit the
	// descriptor budget leaves outside it (6,000 of 20,000).
	DefaultMaxPages = 1024
	// pageLoadsPerSecond, pageLoadBurst: a cluster's page per address, a
	// reload now and then and a room opening the link at once behind one
	// address, not a loop.
	pageLoadsPerSecond = 2
	pageLoadBurst      = 20
	// pageOpensPerSecond, pageOpenBurst: websockets opened per address. A
	// page reconnects with backoff (0.5 s doubling to 10 s), so a room of
	// 64 tabs behind one address reconnecting after a blip is one burst;
	// a loop reconnecting with ?since=0 (a snapshot each time) is not.
	pageOpensPerSecond = 4
	pageOpenBurst      = DefaultMaxPagesPerAddress
	// instructorPages are places kept for the instructor's own pages
	// (the projector, a laptop, a phone): they count against neither
	// limit, so a room that takes every place cannot lock the instructor
	// out of their own cluster.
	instructorPages = 16
)

// errTooManyPages refuses a websocket past a page limit.
var errTooManyPages = errors.New("PAGE_LIMIT_REACHED")

// pageConns counts the open websockets, per client address and in all,
// and the instructor's apart.
type pageConns struct {
	maxPerAddress, max int

	mu         sync.Mutex
	byHost     map[string]int
	total      int
	instructor int // the instructor's pages, in instructorPages' places
}

// admit takes a place for a websocket from host, or says which limit
// refuses it (with the HTTP status to answer); release gives it back. The
// instructor's pages take their reserved places first.
func (p *pageConns) admit(host string, instructor bool) (release func(), status int, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if instructor && p.instructor < instructorPages {
		p.instructor++
		var once sync.Once
		return func() {
			once.Do(func() {
				p.mu.Lock()
				p.instructor--
				p.mu.Unlock()
			})
		}, 0, nil
	}
	switch {
	case p.byHost[host] >= p.maxPerAddress:
		return nil, http.StatusTooManyRequests, fmt.Errorf("%w: %d live pages are open from your address already (serve -max-pages-per-address): close some tabs; this page retries on its own", errTooManyPages, p.maxPerAddress)
	case p.total >= p.max:
		return nil, http.StatusServiceUnavailable, fmt.Errorf("%w: this server has %d live pages open, its limit (serve -max-pages): ask the instructor; this page retries on its own", errTooManyPages, p.max)
	}
	if p.byHost == nil {
		p.byHost = make(map[string]int)
	}
	p.byHost[host]++
	p.total++
	var once sync.Once
	return func() { once.Do(func() { p.release(host) }) }, 0, nil
}

func (p *pageConns) release(host string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total--
	if p.byHost[host]--; p.byHost[host] <= 0 {
		delete(p.byHost, host) // an address with no page costs nothing
	}
}

// pageLoadRefused takes a page load from the request's address bucket;
// when it is empty, handled is true and err the 429 to answer.
func (s *Server) pageLoadRefused(c echo.Context) (handled bool, err error) {
	if s.pageLoads.allow(c.Request().RemoteAddr, s.now()) {
		return false, nil
	}
	c.Response().Header().Set("Retry-After", "1")
	return true, echo.NewHTTPError(http.StatusTooManyRequests,
		fmt.Sprintf("too many page loads from your address: at most %d a second (bursts of %d); wait a moment and reload", pageLoadsPerSecond, pageLoadBurst))
}

// newPageLoadLimiters are the page loads' buckets, one per address.
func newPageLoadLimiters() clientLimiters {
	return clientLimiters{perSecond: pageLoadsPerSecond, burst: pageLoadBurst}
}

// newPageOpenLimiters are the websocket openings' buckets, one per address.
func newPageOpenLimiters() clientLimiters {
	return clientLimiters{perSecond: pageOpensPerSecond, burst: pageOpenBurst}
}

// pageOpenRefused takes a websocket opening from the request's address
// bucket (the instructor's pages and the serving machine's own are not
// counted: tabs on the laptop that serves); when it is empty, refused is
// the 429 to answer.
func (s *Server) pageOpenRefused(r *http.Request, instructor bool) (refused error) {
	if instructor || servingMachine(clientHost(r.RemoteAddr)) || s.pageOpens.allow(r.RemoteAddr, s.now()) {
		return nil
	}
	return echo.NewHTTPError(http.StatusTooManyRequests,
		fmt.Sprintf("%v: too many live pages opened from your address: at most %d a second (bursts of %d); this page retries on its own", errTooManyPages, pageOpensPerSecond, pageOpenBurst))
}

// OpenPages is how many websockets the server holds now, every cluster's,
// the instructor's included: the hostile-room check (server/loadtest)
// reports its peak.
func (s *Server) OpenPages() int {
	s.pages.mu.Lock()
	defer s.pages.mu.Unlock()
	return s.pages.total + s.pages.instructor
}
