package loadtest

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/loglab/loglab/server"
)

// inProcess is a workshop server serving on a loopback port of its own, in
// this process, so that its goroutines and descriptors are this process's
// to count.
type inProcess struct {
	srv    *server.Server
	hs     *http.Server
	ln     net.Listener
	served chan struct{}
	logs   *serverLog

	mu      sync.Mutex
	serveEr error // what Serve returned, when not a shutdown
}

// startServer opens a server on opts (its DataDir, its limits) and serves
// it on 127.0.0.1:0 as `loglab serve` does: the same connection limits
// and http.Server settings that matter under attack (a header timeout,
// idle connections closed).
func startServer(opts server.Options) (*inProcess, error) {
	p := &inProcess{logs: &serverLog{}, served: make(chan struct{})}
	opts.Logger = slog.New(p.logs)
	srv, err := server.New(opts)
	if err != nil {
		return nil, err
	}
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		srv.Close()
		return nil, err
	}
	perAddress, total := server.ConnectionLimits(descriptorLimit())
	ln := server.LimitConnections(raw, perAddress, total)
	p.srv, p.ln = srv, ln
	p.hs = &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	go func() {
		defer close(p.served)
		if err := p.hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			p.mu.Lock()
			p.serveEr = err
			p.mu.Unlock()
		}
	}()
	return p, nil
}

func (p *inProcess) addr() string { return p.ln.Addr().String() }

// stop closes the clusters, then the HTTP server with its connections
// (hijacked websockets end with their clusters' sessions); it returns the
// first thing that went wrong, Serve's own error included.
func (p *inProcess) stop(timeout time.Duration) error {
	errClose := p.srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	errShutdown := p.hs.Shutdown(ctx)
	<-p.served
	p.mu.Lock()
	defer p.mu.Unlock()
	return errors.Join(errClose, errShutdown, p.serveEr)
}
