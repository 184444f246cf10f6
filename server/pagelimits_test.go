package server

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// clientFrom is an HTTP client whose connections leave from the loopback
// address ip (127.0.0.x: every one is this machine on Linux), so a test
// is several client addresses.
func clientFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
}

// dialFrom opens a page's websocket on the instructor's cluster from ip;
// a refusal is returned with the HTTP answer's status and body.
func dialFrom(t *testing.T, ts *httptest.Server, ip string) (c *websocket.Conn, status int, body string) {
	t.Helper()
	return dialFromAs(t, ts, ip, "")
}

// dialFromAs is dialFrom with a credential (Bearer token; "" for none).
func dialFromAs(t *testing.T, ts *httptest.Server, ip, token string) (c *websocket.Conn, status int, body string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	opts := &websocket.DialOptions{HTTPClient: clientFrom(ip)}
	if token != "" {
		opts.HTTPHeader = http.Header{"Authorization": {"Bearer " + token}}
	}
	c, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+"/ws?since=0", opts)
	if err != nil {
		if resp == nil {
			t.Fatalf("dialling from %s: %v", ip, err)
		}
		b, _ := io.ReadAll(resp.Body)
		return nil, resp.StatusCode, string(b)
	}
	t.Cleanup(func() { c.CloseNow() })
	return c, http.StatusSwitchingProtocols, ""
}

// The second reproduction: websockets that never read, with no
// login, from two addresses, until the process ran out of descriptors.
// One address holds at most MaxPagesPerAddress pages, the server
// MaxPages: past either the upgrade is refused with a status and words
// (429 for the address, 503 for the server), and another address still
// connects while one is refused. A page that closes gives its place back.
func TestPagesPerAddressAndInAllAreBounded(t *testing.T) {
	s, ts := newRolesServer(t, Options{MaxPagesPerAddress: 2, MaxPages: 3})
	for range 2 {
		if _, status, body := dialFrom(t, ts, "127.0.0.1"); status != http.StatusSwitchingProtocols {
			t.Fatalf("a page within the address's limit: %d %s", status, body)
		}
	}
	_, status, body := dialFrom(t, ts, "127.0.0.1")
	if status != http.StatusTooManyRequests || !strings.Contains(body, "PAGE_LIMIT_REACHED") || !strings.Contains(body, "2 live pages are open from your address") {
		t.Fatalf("a third page from one address: %d %s", status, body)
	}
	other, status, body := dialFrom(t, ts, "127.0.0.2")
	if status != http.StatusSwitchingProtocols {
		t.Fatalf("a page from another address, while the first is refused: %d %s", status, body)
	}
	_, status, body = dialFrom(t, ts, "127.0.0.3")
	if status != http.StatusServiceUnavailable || !strings.Contains(body, "this server has 3 live pages open") {
		t.Fatalf("a page past the server's limit: %d %s", status, body)
	}

	other.Close(websocket.StatusNormalClosure, "")
	waitForPages(t, s, 2)
	if _, status, body := dialFrom(t, ts, "127.0.0.3"); status != http.StatusSwitchingProtocols {
		t.Fatalf("a page after one closed: %d %s", status, body)
	}
}

// waitForPages waits until the server counts n open pages: a closed
// websocket's handler returns once its read fails.
func waitForPages(t *testing.T, s *Server, n int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		got := s.OpenPages()
		if got == n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the server never counted %d open pages", n)
}

// A loop reloading a cluster's page (each load draws the whole view
// under the cluster's lock) is refused past its address's burst, with
// 429 and words; another address still loads it.
func TestPageLoadsPerAddressAreBounded(t *testing.T) {
	s, ts := newRolesServer(t, Options{})
	frozen := time.Now()
	s.now = func() time.Time { return frozen } // no refill: the test counts tokens, not time
	get := func(ip, path string) (int, string) {
		resp, err := clientFrom(ip).Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for i := range pageLoadBurst {
		if status, _ := get("127.0.0.1", "/live"); status != http.StatusOK {
			t.Fatalf("page load %d of the burst: %d", i+1, status)
		}
	}
	if status, body := get("127.0.0.1", "/live"); status != http.StatusTooManyRequests || !strings.Contains(body, "too many page loads from your address") {
		t.Fatalf("a page load past the burst: %d %s", status, body)
	}
	if status, _ := get("127.0.0.2", "/live"); status != http.StatusOK {
		t.Fatalf("another address's page load: %d", status)
	}
}

// A room that takes every place (the flood of the hostile-room check held
// all 1,024) locked the instructor out of their own cluster's page. The
// instructor's pages have places of their own: they connect when the
// server is full and from an address at its limit, and count against
// neither limit; past those places they queue with everyone else.
func TestTheInstructorConnectsWhenTheRoomHasTakenEveryPlace(t *testing.T) {
	s, ts := newRolesServer(t, Options{MaxPagesPerAddress: 1, MaxPages: 1})
	if _, status, body := dialFrom(t, ts, "127.0.0.1"); status != http.StatusSwitchingProtocols {
		t.Fatalf("the room's page: %d %s", status, body)
	}
	if _, status, _ := dialFrom(t, ts, "127.0.0.2"); status != http.StatusServiceUnavailable {
		t.Fatalf("a participant's page past the server's limit: %d, want 503", status)
	}
	for i := range instructorPages {
		if _, status, body := dialFromAs(t, ts, "127.0.0.1", s.InstructorToken()); status != http.StatusSwitchingProtocols {
			t.Fatalf("the instructor's page %d with the server full and their address at its limit: %d %s", i+1, status, body)
		}
	}
	if got := s.OpenPages(); got != 1+instructorPages {
		t.Fatalf("the server counts %d open pages, want %d", got, 1+instructorPages)
	}
	_, status, body := dialFromAs(t, ts, "127.0.0.1", s.InstructorToken())
	if status != http.StatusTooManyRequests || !strings.Contains(body, "PAGE_LIMIT_REACHED") {
		t.Fatalf("an instructor's page past their reserved places: %d %s, want the address's 429", status, body)
	}
}

// A page looping on reconnect with ?since=0 is sent a whole snapshot each
// time: 16 such loops made 45,000 connections in 40 s. Each address opens
// at most pageOpenBurst websockets at once and pageOpensPerSecond after,
// with a 429 naming the limit; another address, the instructor and the
// serving machine's own tabs (127.0.0.1) still connect.
func TestPageOpeningsPerAddressAreBounded(t *testing.T) {
	s, ts := newRolesServer(t, Options{})
	frozen := time.Now()
	s.now = func() time.Time { return frozen } // no refill: the test counts tokens, not time
	for i := range pageOpenBurst {
		c, status, body := dialFrom(t, ts, "127.0.0.2")
		if status != http.StatusSwitchingProtocols {
			t.Fatalf("opening %d of the burst: %d %s", i+1, status, body)
		}
		c.CloseNow() // the place is given back: only the openings count here
	}
	_, status, body := dialFrom(t, ts, "127.0.0.2")
	if status != http.StatusTooManyRequests || !strings.Contains(body, "PAGE_LIMIT_REACHED") || !strings.Contains(body, "too many live pages opened from your address") {
		t.Fatalf("an opening past the burst: %d %s", status, body)
	}
	if _, status, body := dialFrom(t, ts, "127.0.0.3"); status != http.StatusSwitchingProtocols {
		t.Fatalf("another address's page: %d %s", status, body)
	}
	if _, status, body := dialFromAs(t, ts, "127.0.0.2", s.InstructorToken()); status != http.StatusSwitchingProtocols {
		t.Fatalf("the instructor's page from the refused address: %d %s", status, body)
	}
	for i := range pageOpenBurst + 1 {
		c, status, body := dialFrom(t, ts, "127.0.0.1")
		if status != http.StatusSwitchingProtocols {
			t.Fatalf("opening %d from the serving machine itself (127.0.0.1, not counted): %d %s", i+1, status, body)
		}
		c.CloseNow()
	}
}
