package loadtest

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
)

// pageLoads counts a GET flood's answers: the page (200), the address's
// page-load limit (429 naming it), anything else (a failure).
type pageLoads struct {
	mu         sync.Mutex
	ok         int
	refused    int
	other      int
	firstOther string
}

func (p *pageLoads) String() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return fmt.Sprintf("%d pages sent, %d refused 429 (per address), %d other answers", p.ok, p.refused, p.other)
}

// pageLoadLoop reloads path from ip as fast as the server answers until
// ctx ends: each load draws a cluster's whole view.
func pageLoadLoop(ctx context.Context, p *pageLoads, base, path string, ip net.IP) {
	hc := newHTTPClient(tcpAddr(ip), nil)
	defer hc.CloseIdleConnections()
	for ctx.Err() == nil {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
		if err != nil {
			p.add(0, err.Error())
			return
		}
		resp, err := hc.Do(req)
		if err != nil {
			if ctx.Err() == nil {
				p.add(0, err.Error())
			}
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		p.add(resp.StatusCode, string(body))
	}
}

func (p *pageLoads) add(status int, body string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case status == http.StatusOK:
		p.ok++
	case status == http.StatusTooManyRequests && strings.Contains(body, "too many page loads from your address"):
		p.refused++
	default:
		p.other++
		if p.firstOther == "" {
			p.firstOther = fmt.Sprintf("%d %.200s", status, body)
		}
	}
}
