package loadtest

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// victim is the instructor typing while the room attacks: each command
// is a produce with acks=all of a value of its own to orders/0, so that
// every acknowledgement is a record to find again at the end.
type victim struct {
	c      *apiClient
	every  time.Duration
	next   int
	acked  []string // values the cluster acknowledged
	failed []string // commands refused or failed: each is a hard failure
}

const victimProducer = "hostile-victim"

func (v *victim) setup(ctx context.Context) error {
	res, err := v.c.command(ctx, instructorCluster, "producer create "+victimProducer+" acks=all")
	if err != nil {
		return err
	}
	if !res.OK {
		return fmt.Errorf("producer create: %s", firstLine(res.Output))
	}
	return nil
}

// run types n commands, one every v.every after the previous answer, and
// returns their round trips in ms.
func (v *victim) run(ctx context.Context, n int) []float64 {
	var rts []float64
	for range n {
		if ctx.Err() != nil {
			break
		}
		v.next++
		value := fmt.Sprintf("victim-%d", v.next)
		line := "produce orders key=victim value=" + value + " partition=0 producer=" + victimProducer
		start := time.Now()
		res, err := v.c.command(ctx, instructorCluster, line)
		rts = append(rts, float64(time.Since(start).Microseconds())/1000)
		switch {
		case err != nil:
			v.failed = append(v.failed, fmt.Sprintf("%q: %v", line, err))
		case !res.OK || !strings.Contains(res.Output, "(acks=all"):
			v.failed = append(v.failed, fmt.Sprintf("%q: %s", line, firstLine(res.Output)))
		default:
			v.acked = append(v.acked, value)
		}
		time.Sleep(v.every)
	}
	return rts
}

// lost reads orders/0 back and returns the acknowledged values it does
// not hold.
func (v *victim) lost(ctx context.Context) ([]string, error) {
	res, err := v.c.command(ctx, instructorCluster, "show log orders/0")
	if err != nil {
		return nil, err
	}
	if !res.OK {
		return nil, fmt.Errorf("show log orders/0: %s", firstLine(res.Output))
	}
	have := map[string]bool{}
	for _, l := range strings.Split(res.Output, "\n") {
		if _, p, ok := strings.Cut(l, " payload: "); ok {
			have[strings.TrimSpace(p)] = true
		}
	}
	var lost []string
	for _, a := range v.acked {
		if !have[a] {
			lost = append(lost, a)
		}
	}
	return lost, nil
}

// prober asks the server for its cluster list on a new connection every
// period (no keep-alive: each probe goes through accept, where a server
// out of descriptors fails first), counting probes that got no 200.
type prober struct {
	mu     sync.Mutex
	ok     int
	failed int
	first  string
}

func (p *prober) run(ctx context.Context, base string, period time.Duration) {
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	for ctx.Err() == nil {
		err := probe(ctx, hc, base)
		p.mu.Lock()
		if err == nil {
			p.ok++
		} else if ctx.Err() == nil {
			p.failed++
			if p.first == "" {
				p.first = err.Error()
			}
		}
		p.mu.Unlock()
		select {
		case <-ctx.Done():
		case <-time.After(period):
		}
	}
}

func probe(ctx context.Context, hc *http.Client, base string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/v1/clusters", nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET /api/v1/clusters: %s", resp.Status)
	}
	return nil
}

func (p *prober) get() (ok, failed int, first string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ok, p.failed, p.first
}
