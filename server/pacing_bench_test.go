package server

import (
	"bytes"
	"compress/flate"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
)

// BenchmarkWorkshopUpdateBytes is where an update's bytes go on the
// instructor's cluster of the load check (make loadtest): a producer and
// a consumer group, a command every 300 ms (the load check's instructor
// loop) and the real-time driver's tick every 500 ms, on a fake clock, for
// 20 s of wall time per iteration. It reports, per update caused by a
// command and per update caused by a quiet tick, the bytes on the wire
// (each message deflated alone at BestSpeed, as the server's websocket
// does without context takeover), and what each panel adds to them: the
// message's deflated size minus the size without that panel's fragments.
// Figures, not assertions: this is the measure behind pacing.go.
func BenchmarkWorkshopUpdateBytes(b *testing.B) {
	panels := []string{"charts", "metrics", "network", "groups", "topic/", "summary"}
	type sums struct {
		updates, wire int
		panel         map[string]int
	}
	all := map[string]*sums{"cmd": {panel: map[string]int{}}, "tick": {panel: map[string]int{}}}
	for range b.N {
		s, err := newLiveSession("", nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
		if err != nil {
			b.Fatal(err)
		}
		fc := newFakeWallClock()
		s.realtime = &realtimeDriver{clock: fc.clock()}
		sub := s.subscribe(func() {})
		for _, line := range []string{
			"producer create load-producer linger.ms=5",
			"consumer create load-c1 topics=orders group=load-group",
			"consumer create load-c2 topics=orders group=load-group",
			"realtime on",
		} {
			if e := s.run(line); !e.OK {
				b.Fatal(e.Output)
			}
		}
		queuedMessages(b, sub)
		loop := []string{
			"produce orders key=k{i} value=order-{i} count=10 producer=load-producer",
			"poll load-c1 timeout=100ms",
			"poll load-c2 timeout=100ms",
		}
		count := func(kind string) {
			sm := all[kind]
			for _, raw := range queuedMessages(b, sub) {
				var u update
				if json.Unmarshal(raw, &u) != nil || u.Type != "update" {
					continue
				}
				whole := deflatedBestSpeed(b, raw)
				sm.updates++
				sm.wire += whole
				for _, p := range panels {
					without := u
					without.Fragments = nil
					for _, f := range u.Fragments {
						if !strings.HasPrefix(f.Key, p) {
							without.Fragments = append(without.Fragments, f)
						}
					}
					msg, err := marshalHTML(without)
					if err != nil {
						b.Fatal(err)
					}
					sm.panel[p] += whole - deflatedBestSpeed(b, msg)
				}
			}
		}
		for ms, cmd, nextCmd, nextTick := 0, 0, 300, 500; ms < 20000; {
			if nextCmd <= nextTick {
				ms, nextCmd = nextCmd, nextCmd+300
				fc.now = at(ms)
				if e := s.run(loop[cmd%len(loop)]); !e.OK {
					b.Fatal(e.Output)
				}
				cmd++
				count("cmd")
				continue
			}
			ms, nextTick = nextTick, nextTick+500
			fc.now = at(ms)
			wake(s, ms)
			count("tick")
		}
		s.unsubscribe(sub)
		s.closeAll()
		s.lab.Close()
	}
	for _, kind := range []string{"cmd", "tick"} {
		sm := all[kind]
		if sm.updates == 0 {
			b.Fatalf("no update caused by a %s", kind)
		}
		b.ReportMetric(float64(sm.wire)/float64(sm.updates), kind+"-wire-B/update")
		for _, p := range panels {
			b.ReportMetric(float64(sm.panel[p])/float64(sm.updates), kind+"-"+strings.TrimSuffix(p, "/")+"-B/update")
		}
	}
}

func deflatedBestSpeed(b *testing.B, msg []byte) int {
	var buf bytes.Buffer
	w, err := flate.NewWriter(&buf, flate.BestSpeed)
	if err != nil {
		b.Fatal(err)
	}
	w.Write(msg)
	w.Close()
	return buf.Len()
}
