package loadtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// maxMessage bounds what a watcher accepts in one message, inflated: the
// server's own bound on an update is about 1 MiB (maxUpdateBytes).
const maxMessage = 8 << 20

// maxReconnects bounds how often one watcher comes back after the server
// dropped it, so a server that drops everyone cannot keep the run busy.
const maxReconnects = 100

// watcher is one browser page watching a cluster: it connects to
// /ws?cluster=ID with permessage-deflate (no context takeover, as the
// browser negotiates it with this server), reads every message and
// measures it. It never sends commands.
type watcher struct {
	index   int
	cluster string
	base    string // ws://127.0.0.1:PORT
	http    *http.Client
	wire    counter // bytes read off the network, handshakes included
	clock   *commandClock

	// Counted as they arrive, read while the run goes on.
	messages atomic.Int64
	updates  atomic.Int64
	decoded  counter

	// Owned by the reading goroutine until done is closed.
	latencies  []float64 // ms, from an update's "at" to its arrival
	lastID     int64     // the newest update id seen, 0: none
	skipped    int64     // ids between two consecutive updates: coalesced or lost
	sawID      bool
	sawAt      bool
	noID, noAt int64 // updates without an id, without an "at"
	drops      int   // closes by the server (too slow, policy)
	reconnects int   // connections after the first
	failures   []string
	done       chan struct{} // closed when the reader returns

	mu      sync.Mutex
	conn    *websocket.Conn
	closing bool
}

func newWatcher(index int, cluster, base string, local net.Addr, clock *commandClock) *watcher {
	w := &watcher{index: index, cluster: cluster, base: base, clock: clock,
		done: make(chan struct{})}
	w.http = newHTTPClient(local, &w.wire)
	return w
}

// message is the part of a websocket message the load test reads.
type message struct {
	Type string `json:"type"`
	ID   *int64 `json:"id"`
	At   *int64 `json:"at"`
}

// dial opens the websocket, resuming after the last update seen when
// there is one (the page's reconnect).
func (w *watcher) dial(ctx context.Context) (*websocket.Conn, error) {
	url := w.base + "/ws?cluster=" + w.cluster
	if w.lastID > 0 {
		url += "&since=" + strconv.FormatInt(w.lastID, 10)
	}
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(dctx, url, &websocket.DialOptions{
		HTTPClient:      w.http,
		CompressionMode: websocket.CompressionNoContextTakeover,
	})
	if err != nil {
		return nil, err
	}
	c.SetReadLimit(maxMessage)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closing {
		c.CloseNow()
		return nil, errClosing
	}
	w.conn = c
	return c, nil
}

var errClosing = errors.New("the watcher is closing")

// read receives messages until close is called, reconnecting when the
// server drops the page (as the page reloads). conn is the first
// connection, opened by dial.
func (w *watcher) read(ctx context.Context, conn *websocket.Conn) {
	defer close(w.done)
	for {
		err := w.readConn(ctx, conn)
		if w.isClosing() || ctx.Err() != nil {
			return
		}
		status := websocket.CloseStatus(err)
		switch status {
		case websocket.StatusPolicyViolation, websocket.StatusTryAgainLater:
			w.drops++
		default:
			w.failures = append(w.failures, fmt.Sprintf("watcher %d (%s): connection lost: %v", w.index, w.cluster, err))
		}
		if w.reconnects >= maxReconnects {
			w.failures = append(w.failures, fmt.Sprintf("watcher %d (%s): gave up after %d reconnections", w.index, w.cluster, w.reconnects))
			return
		}
		w.reconnects++
		conn, err = w.dial(ctx)
		if err != nil {
			if !w.isClosing() && ctx.Err() == nil {
				w.failures = append(w.failures, fmt.Sprintf("watcher %d (%s): reconnecting: %v", w.index, w.cluster, err))
			}
			return
		}
	}
}

func (w *watcher) readConn(ctx context.Context, conn *websocket.Conn) error {
	defer conn.CloseNow()
	for {
		_, data, err := conn.Read(ctx)
		if err != nil {
			return err
		}
		arrived := time.Now()
		w.messages.Add(1)
		w.decoded.add(len(data))
		m, ok := readHeader(data)
		if !ok {
			if err := json.Unmarshal(data, &m); err != nil {
				w.failures = append(w.failures, fmt.Sprintf("watcher %d (%s): a message that is not JSON: %v", w.index, w.cluster, err))
				continue
			}
		}
		if m.Type != "update" {
			continue
		}
		w.updates.Add(1)
		if m.At != nil {
			w.sawAt = true
			w.latencies = append(w.latencies, float64(arrived.UnixMicro())/1000-float64(*m.At))
		} else {
			w.noAt++
			if w.clock != nil {
				w.clock.observe(arrived)
			}
		}
		if m.ID == nil {
			w.noID++
		} else {
			w.sawID = true
			if w.lastID > 0 && *m.ID > w.lastID+1 {
				w.skipped += *m.ID - w.lastID - 1
			}
			if *m.ID > w.lastID {
				w.lastID = *m.ID
			}
		}
	}
}

func (w *watcher) isClosing() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.closing
}

// close ends the page as a browser tab closing does (a close handshake),
// and waits for its reader.
func (w *watcher) close() {
	w.mu.Lock()
	w.closing = true
	c := w.conn
	w.mu.Unlock()
	if c != nil {
		c.Close(websocket.StatusGoingAway, "load test done")
	}
	<-w.done
	w.http.CloseIdleConnections()
}

// commandClock is the latency fallback for a server whose updates carry no
// "at": the time from an instructor's command to the first page that
// receives an update after it (one sample per command, not per page).
type commandClock struct {
	mu      sync.Mutex
	sent    time.Time
	pending bool
	samples []float64
}

// sending marks a command about to be sent.
func (c *commandClock) sending() {
	c.mu.Lock()
	c.sent, c.pending = time.Now(), true
	c.mu.Unlock()
}

func (c *commandClock) observe(arrived time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending && arrived.After(c.sent) {
		c.samples = append(c.samples, float64(arrived.Sub(c.sent).Microseconds())/1000)
		c.pending = false
	}
}
