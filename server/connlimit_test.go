package server

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

var _ io.ReaderFrom = (*limitedConn)(nil) // sendfile survives the wrapper

// connFrom opens a keep-alive connection from ip to addr and makes one
// request on it, so that the server has accepted it when this returns;
// it returns the connection and the answer's status line and body.
func connFrom(t *testing.T, ip, addr string) (net.Conn, string) {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: time.Minute}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return c, "no answer: " + err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return c, resp.Status + " " + strings.TrimSpace(string(b))
}

// Plain HTTP connections were not bounded: a script holding thousands
// (keep-alives, or connections that never send a header) took the
// descriptors the clusters need. Past the per-address limit or the total
// a connection is answered 503 CONNECTION_LIMIT_REACHED and closed;
// another address still connects; the serving machine's own address is
// never refused; a connection closed gives its place back.
func TestConnectionsPerAddressAndInAllAreBounded(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := LimitConnections(raw, 2, 3)
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	addr := raw.Addr().String()

	first, got := connFrom(t, "127.0.0.2", addr)
	if got != "200 OK ok" {
		t.Fatalf("a first connection: %s", got)
	}
	if _, got := connFrom(t, "127.0.0.2", addr); got != "200 OK ok" {
		t.Fatalf("a second connection from the address: %s", got)
	}
	if _, got := connFrom(t, "127.0.0.2", addr); !strings.HasPrefix(got, "503") || !strings.Contains(got, "CONNECTION_LIMIT_REACHED: 2 connections are open from your address") {
		t.Fatalf("a third connection from one address: %s", got)
	}
	if _, got := connFrom(t, "127.0.0.3", addr); got != "200 OK ok" {
		t.Fatalf("a connection from another address: %s", got)
	}
	if _, got := connFrom(t, "127.0.0.4", addr); !strings.HasPrefix(got, "503") || !strings.Contains(got, "this server holds 3 connections, its limit") {
		t.Fatalf("a connection past the total: %s", got)
	}
	for i := range 5 {
		if _, got := connFrom(t, "127.0.0.1", addr); got != "200 OK ok" {
			t.Fatalf("the serving machine's own connection %d with the server full: %s", i+1, got)
		}
	}
	if open, refused := ln.Counts(); open != 3 || refused != 2 {
		t.Fatalf("the listener counts %d open and %d refused, want 3 and 2", open, refused)
	}

	first.Close()
	deadline := time.Now().Add(time.Minute)
	for open, _ := ln.Counts(); open != 2; open, _ = ln.Counts() {
		if time.Now().After(deadline) {
			t.Fatalf("a closed connection's place was never given back: %d open", open)
		}
		time.Sleep(5 * time.Millisecond) // the server notices the close when its read fails
	}
	if _, got := connFrom(t, "127.0.0.4", addr); got != "200 OK ok" {
		t.Fatalf("a connection after one closed: %s", got)
	}
}
