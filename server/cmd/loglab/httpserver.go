package main

import (
	"log/slog"
	"net/http"
	"time"
)

// idleKeepAlive is how long a keep-alive connection may wait for its next
// request. Without it net/http keeps an idle connection for ever (its
// IdleTimeout falls back to ReadTimeout, which serve leaves at zero so that
// a slow upload is not cut), and every browser tab or script that stopped
// mid-session holds one of the process's descriptors until it quits.
// Websockets are hijacked and not concerned: their own limits are in
// server/pagelimits.go.
const idleKeepAlive = 2 * time.Minute

// readHeaderWait bounds a request's headers, so that a client that opens a
// connection and trickles bytes cannot hold it open.
const readHeaderWait = 10 * time.Second

// newHTTPServer is the http.Server that serve runs handler on.
//
// Running out of descriptors (EMFILE, ENFILE) at accept does not end it:
// net/http's Serve treats a temporary accept error (syscall.Errno's
// Temporary covers both) by sleeping 5 ms, doubling up to 1 s, and
// accepting again, and serve's listener (server.LimitConnections, which
// bounds connections per address and in all) returns accept errors as
// they are, never turning one permanent. Its message ("http: Accept
// error: accept tcp …: too many open files; retrying in 40ms") goes to
// logger as a warning, beside the rest of the server's log, instead of to
// the standard library's log.
func newHTTPServer(handler http.Handler, logger *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: readHeaderWait,
		IdleTimeout:       idleKeepAlive,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
}
