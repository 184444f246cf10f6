package loadtest

import (
	"fmt"
	"net"
	"sync/atomic"
)

// counter counts bytes; safe for concurrent use.
type counter struct{ n atomic.Int64 }

func (c *counter) add(n int)   { c.n.Add(int64(n)) }
func (c *counter) load() int64 { return c.n.Load() }

// countingConn counts the bytes read from a connection: for a websocket,
// what the server sent over the network (frames, compressed as they
// travelled, and the handshake's response), before the client inflates them.
type countingConn struct {
	net.Conn
	read *counter
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.read.add(n)
	return n, err
}

// loopbackPlan hands out local addresses: on Linux all of 127.0.0.0/8 is
// the loopback interface, so each participant and each watcher can
// connect from an address of its own, as each laptop of a workshop does,
// and per-address limits see them apart. Where only 127.0.0.1 exists
// (macOS by default), every client shares it: plan.spread is false and
// the report says so.
type loopbackPlan struct{ spread bool }

func newLoopbackPlan() loopbackPlan {
	ln, err := net.Listen("tcp", "127.0.2.1:0")
	if err != nil {
		return loopbackPlan{}
	}
	ln.Close()
	return loopbackPlan{spread: true}
}

// instructor's address is 127.0.0.1, the host's own.
func (p loopbackPlan) instructor() net.Addr { return nil }

// participant i (from 0) connects from 127.0.2.(i+1)...
func (p loopbackPlan) participant(i int) net.Addr { return p.addr(2, i) }

// and watcher i from 127.0.16.(i+1)... (up to 250 per third octet).
func (p loopbackPlan) watcher(i int) net.Addr { return p.addr(16, i) }

func (p loopbackPlan) addr(base, i int) net.Addr {
	if !p.spread {
		return nil
	}
	ip := net.ParseIP(fmt.Sprintf("127.0.%d.%d", base+i/250, i%250+1))
	return &net.TCPAddr{IP: ip}
}
