package server

import (
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// Connections, bounded at the listener. Websockets have their own limits
// (pagelimits.go), but a plain HTTP connection is a descriptor too: a
// script opening connections and sending nothing (each held until
// ReadHeaderTimeout) or keeping thousands of keep-alives open could take
// the descriptors the clusters' files need. So each client address holds
// at most a room's worth of connections (a classroom behind one NAT: 30
// laptops with a browser's 6 connections and two pages each fit), the
// server a bounded total, and a connection past either is answered 503
// and closed at once. The machine's own connections (127.0.0.1, ::1: the
// instructor on the laptop that serves) count against neither, so a full
// room cannot lock the instructor out.
const (
	// DefaultMaxConnsPerAddress bounds one client address's connections.
	DefaultMaxConnsPerAddress = 256
	// DefaultMaxConns bounds every connection, websockets included; at
	// most connsShareOfLimit% of the descriptor limit.
	DefaultMaxConns   = 4096
	connsShareOfLimit = 25
)

// ConnectionLimits are the listener's limits for a process whose
// descriptor limit is limit (0: unknown).
func ConnectionLimits(limit uint64) (perAddress, total int) {
	total = DefaultMaxConns
	if limit > 0 {
		total = min(total, int(limit*connsShareOfLimit/100))
	}
	return DefaultMaxConnsPerAddress, total
}

// LimitConnections wraps ln so that it holds at most perAddress
// connections from one client address and total in all. Accept errors
// are returned as they are (net/http's Serve backs off on a temporary
// one, EMFILE included).
func LimitConnections(ln net.Listener, perAddress, total int) *LimitedListener {
	return &LimitedListener{Listener: ln, perAddress: perAddress, total: total, byHost: make(map[string]int)}
}

// LimitedListener is LimitConnections' listener.
type LimitedListener struct {
	net.Listener
	perAddress, total int

	mu      sync.Mutex
	byHost  map[string]int
	open    int
	refused int
}

func (l *LimitedListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		host := clientHost(c.RemoteAddr().String())
		if why := l.admit(host); why != "" {
			refuseConn(c, why)
			continue
		}
		return &limitedConn{Conn: c, release: func() { l.release(host) }}, nil
	}
}

// admit counts a connection from host, or says which limit refuses it.
func (l *LimitedListener) admit(host string) (refusal string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if servingMachine(host) {
		l.byHost[host]++
		return ""
	}
	switch {
	case l.byHost[host] >= l.perAddress:
		l.refused++
		return fmt.Sprintf("%d connections are open from your address already, the server's limit per address: close some tabs or programs", l.perAddress)
	case l.open >= l.total:
		l.refused++
		return fmt.Sprintf("this server holds %d connections, its limit: ask the instructor", l.total)
	}
	l.byHost[host]++
	l.open++
	return ""
}

func (l *LimitedListener) release(host string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !servingMachine(host) {
		l.open--
	}
	if l.byHost[host]--; l.byHost[host] <= 0 {
		delete(l.byHost, host)
	}
}

// servingMachine reports the serving machine's own loopback addresses
// (127.0.0.1, ::1): the instructor on the laptop that serves. Other
// 127.x.y.z addresses are not exempt (the hostile-room check's attackers
// come from them).
func servingMachine(host string) bool {
	ip := net.ParseIP(host)
	return ip != nil && (ip.Equal(net.IPv4(127, 0, 0, 1)) || ip.Equal(net.IPv6loopback))
}

// Counts is how many connections the listener holds now and how many it
// has refused.
func (l *LimitedListener) Counts() (open, refused int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open, l.refused
}

// refuseConn answers 503 naming the limit and closes c. A new socket's
// send buffer is empty, so the write does not wait; the deadline bounds it
// all the same, since the accept loop waits for it.
func refuseConn(c net.Conn, why string) {
	body := "CONNECTION_LIMIT_REACHED: " + why + "\n"
	c.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
	fmt.Fprintf(c, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nRetry-After: 10\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	c.Close()
}

// limitedConn gives its place back once, on its first Close (net/http
// and a hijacked websocket may both close it).
type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	c.once.Do(c.release)
	return c.Conn.Close()
}

// ReadFrom keeps the TCP connection's: net/http hands a file response to
// the connection's ReadFrom, which is sendfile(2) on a *net.TCPConn (the
// record fetch endpoint's whole point).
func (c *limitedConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(writerOnly{c.Conn}, r)
}
