package loadtest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// upgradeRequest is a browser's websocket handshake, without
// permessage-deflate: the attacker wants the server's bytes uncompressed,
// filling its socket buffers soonest.
const upgradeRequest = "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
	"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"

// outcome is how the server answered one upgrade.
type outcome int

const (
	held       outcome = iota // 101: the server holds the websocket
	perAddress                // 429 PAGE_LIMIT_REACHED: the address's limit
	inTotal                   // 503 PAGE_LIMIT_REACHED: the server's limit
	noReason                  // refused without naming PAGE_LIMIT_REACHED
	noAnswer                  // no HTTP answer: the server did not answer
)

// upgrade opens a websocket to path from the loopback address local and
// reads only the server's answer to the handshake; a held connection is
// returned unread, as an attacker keeps it. why is the refusal's words.
func upgrade(local net.IP, server, path string) (conn net.Conn, o outcome, why string) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: local}, Timeout: 10 * time.Second}
	c, err := d.Dial("tcp", server)
	if err != nil {
		return nil, noAnswer, err.Error()
	}
	c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := fmt.Fprintf(c, upgradeRequest, path, server); err != nil {
		c.Close()
		return nil, noAnswer, err.Error()
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		c.Close()
		return nil, noAnswer, err.Error()
	}
	if resp.StatusCode == http.StatusSwitchingProtocols {
		c.SetDeadline(time.Time{})
		return c, held, ""
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	c.Close()
	why = fmt.Sprintf("%d %s", resp.StatusCode, strings.TrimSpace(string(body)))
	switch {
	case !strings.Contains(string(body), "PAGE_LIMIT_REACHED"):
		return nil, noReason, why
	case resp.StatusCode == http.StatusTooManyRequests:
		return nil, perAddress, why
	case resp.StatusCode == http.StatusServiceUnavailable:
		return nil, inTotal, why
	}
	return nil, noReason, why
}

// tally counts upgrades by outcome and keeps the connections held.
type tally struct {
	mu     sync.Mutex
	counts [noAnswer + 1]int
	first  [noAnswer + 1]string // the first answer of each kind, for the report
	conns  []net.Conn
}

func (t *tally) add(c net.Conn, o outcome, why string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.counts[o]++
	if t.first[o] == "" {
		t.first[o] = why
	}
	if c != nil {
		t.conns = append(t.conns, c)
	}
}

func (t *tally) get() (counts [noAnswer + 1]int, first [noAnswer + 1]string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.counts, t.first
}

// closeAll hangs up every held connection (no close handshake: the
// attacker vanishes).
func (t *tally) closeAll() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, c := range t.conns {
		c.Close()
	}
	t.conns = nil
}

// flood opens perAddress websockets from each of addresses loopback
// addresses (127.0.8.1 …) to cluster, address after address, a few
// dials at a time, and keeps those the server holds, never reading them.
// Going address by address meets the per-address limit first and the
// server's total once enough addresses are in.
func flood(ctx context.Context, t *tally, server, cluster string, addresses, perAddress int) {
	sem := make(chan struct{}, 32)
	var wg sync.WaitGroup
	for a := range addresses {
		ip := loopbackIP(8, a)
		for range perAddress {
			if ctx.Err() != nil {
				break
			}
			sem <- struct{}{}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				t.add(upgrade(ip, server, "/ws?cluster="+cluster))
			}()
		}
	}
	wg.Wait()
}

// slowReaders opens n websockets to cluster, one per address from
// 127.0.4.1, that stay and never read: the server must neither block on
// them nor keep them for ever.
func slowReaders(t *tally, server, cluster string, n int) {
	for i := range n {
		t.add(upgrade(loopbackIP(4, i), server, "/ws?cluster="+cluster))
	}
}

// reconnectLoop reconnects to cluster with ?since=0 (each connection
// asks for a whole snapshot) from address ip until ctx ends, reading the
// first message and hanging up. A refusal waits a little, as the page's
// backoff would not: the attacker's loop only needs to not spin.
func reconnectLoop(ctx context.Context, t *tally, server, cluster string, ip net.IP) (loops int) {
	for ctx.Err() == nil {
		c, o, why := upgrade(ip, server, "/ws?cluster="+cluster+"&since=0")
		t.add(nil, o, why)
		if c == nil {
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
			continue
		}
		// The snapshot's first frame header is enough: the server drew it.
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		var b [2]byte
		io.ReadFull(c, b[:])
		c.Close()
		loops++
	}
	return loops
}

// loopbackIP is 127.0.third.(i+1), spilling into the next third octets
// past 250.
func loopbackIP(third, i int) net.IP {
	return net.IPv4(127, 0, byte(third+i/250), byte(i%250+1))
}
