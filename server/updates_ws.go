package server

import (
	"context"
	"strconv"
	"time"

	"github.com/coder/websocket"
)

// A page's connection is pinged every pingEvery; one that has not answered
// within pongWait is closed: a laptop that went to sleep or lost its Wi-Fi
// does not close its TCP connection, and its queue would otherwise wait
// for the write timeout of an update that may never come. Browsers answer
// pings on their own; the page then reconnects with ?since. Variables so
// that a test can make them short; a connection reads them as it opens.
var (
	pingEvery = 20 * time.Second
	pongWait  = 15 * time.Second
)

// sinceParam reads ?since=N, the last update id a page applied; a page
// that sends it (even 0, or a value that is not an id: then a snapshot) is
// resuming. Without it the connection follows from now on, as before ids.
func sinceParam(v string) (uint64, bool) {
	if v == "" {
		return 0, false
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, true
	}
	return n, true
}

// writeQueued writes a page's queue, each message within writeTimeout.
func writeQueued(ctx context.Context, conn *websocket.Conn, q []queued, stats *updateStats) error {
	for _, m := range q {
		msg := m.msg
		if m.change != nil {
			var err error
			if msg, err = m.change.message(); err != nil {
				return err
			}
		}
		wctx, done := context.WithTimeout(ctx, writeTimeout)
		err := conn.Write(wctx, websocket.MessageText, msg)
		done()
		if err != nil {
			return err
		}
		if m.change != nil {
			stats.sent.Add(1)
			stats.sentBytes.Add(uint64(len(msg)))
		}
	}
	return nil
}

// keepAlive pings the page until ctx ends, and closes a page that stopped
// answering. conn.Ping needs the connection's reader running: readCommands
// is.
func keepAlive(ctx context.Context, cancel func(), conn *websocket.Conn, stats *updateStats, every, wait time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			pctx, done := context.WithTimeout(ctx, wait)
			err := conn.Ping(pctx)
			done()
			if err == nil {
				continue
			}
			if ctx.Err() == nil {
				stats.deadPages.Add(1)
				cancel()
				conn.Close(websocket.StatusPolicyViolation, "no answer to a ping for "+wait.String())
			}
			return
		}
	}
}
