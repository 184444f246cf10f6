package main

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// outOfDescriptors is a listener whose first `failures` accepts fail as the
// kernel's accept4 does when the process has no descriptor left.
type outOfDescriptors struct {
	net.Listener
	mu       sync.Mutex
	failures int
}

func (l *outOfDescriptors) Accept() (net.Conn, error) {
	l.mu.Lock()
	fail := l.failures > 0
	l.failures--
	l.mu.Unlock()
	if fail {
		return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: l.Addr(), Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	return l.Listener.Accept()
}

// syncBuffer is a log destination the server's goroutines write to while
// the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A process out of descriptors fails accept with EMFILE (issue 26: a
// flood of websockets, `accept4: too many open files`). The server must
// back off and accept again once descriptors are free, answer the client
// that waited in the backlog meanwhile, and say so in its own log.
func TestServeKeepsAcceptingAfterEMFILE(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := &outOfDescriptors{Listener: inner, failures: 3}
	var logged syncBuffer
	srv := newHTTPServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "still here")
	}), slog.New(slog.NewTextHandler(&logged, nil)))
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	defer func() {
		srv.Close()
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve ended with %v, want ErrServerClosed", err)
		}
	}()

	resp, err := http.Get("http://" + inner.Addr().String() + "/")
	if err != nil {
		t.Fatalf("the server stopped answering after EMFILE at accept: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "still here" {
		t.Fatalf("answer after EMFILE: %d %q", resp.StatusCode, body)
	}
	if log := logged.String(); strings.Count(log, "too many open files") != 3 || !strings.Contains(log, "level=WARN") {
		t.Errorf("the server's log should carry each failed accept as a warning:\n%s", log)
	}
}

// An idle keep-alive connection is closed after idleKeepAlive: without an
// IdleTimeout (and with no ReadTimeout, which serve does not set) net/http
// keeps it, and its descriptor, for ever.
func TestServeClosesIdleKeepAliveConnections(t *testing.T) {
	srv := newHTTPServer(http.NotFoundHandler(), slog.New(slog.DiscardHandler))
	if srv.IdleTimeout != idleKeepAlive || idleKeepAlive <= 0 {
		t.Fatalf("IdleTimeout %v, want idleKeepAlive (%v)", srv.IdleTimeout, idleKeepAlive)
	}
	if srv.ReadTimeout != 0 {
		t.Fatalf("ReadTimeout %v would cut slow uploads", srv.ReadTimeout)
	}
}
