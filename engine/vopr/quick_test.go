package vopr

import (
	"flag"
	"fmt"
	"github.com/loglab/loglab/engine/lab"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

var qseed = flag.Uint64("qseed", 0, "")
var qmix = flag.String("qmix", "default", "")

func TestQuick(t *testing.T) {
	if *qseed == 0 {
		t.Skip()
	}
	opts := Options{Transcript: true}
	if *qmix == "neg" {
		opts.Acks = "1"
		opts.Mix = LeaderLossMix()
	}
	start := time.Now()
	r := Run(*qseed, 2000, opts)
	fmt.Printf("seed %d: steps=%d errors=%d lines=%d virt=%v wall=%v ok=%v\n", *qseed, r.Steps, r.Errors, len(r.Script), r.Elapsed, time.Since(start), r.OK())
	os.WriteFile("/tmp/vp/transcript.txt", []byte(r.Transcript), 0o644)
	os.WriteFile("/tmp/vp/script.txt", []byte(r.ScriptText()), 0o644)
}

var qnocheck = flag.Bool("qnocheck", false, "")
var qfrom = flag.Int("qfrom", 1, "")
var qn = flag.Int("qn", 0, "")
var qsteps = flag.Int("qsteps", 2000, "")

func TestMulti(t *testing.T) {
	if *qn == 0 {
		t.Skip()
	}
	opts := Options{uncheckedForBench: *qnocheck}
	if *qmix == "neg" {
		opts.Acks = "1"
		opts.Mix = LeaderLossMix()
	}
	start := time.Now()
	bad := 0
	for s := uint64(*qfrom); s < uint64(*qfrom+*qn); s++ {
		st := time.Now()
		r := Run(s, *qsteps, opts)
		line := ""
		if !r.OK() {
			bad++
			line = r.Violations[0].String()
		}
		fmt.Printf("seed %d: steps=%d errors=%d virt=%v wall=%v %s\n", s, r.Steps, r.Errors, r.Elapsed, time.Since(st).Round(time.Millisecond), line[:min(200, len(line))])
	}
	fmt.Printf("total %v, %d bad\n", time.Since(start), bad)
}

func TestSlow(t *testing.T) {
	if *qseed == 0 || !*qnocheck {
		t.Skip()
	}
	r := Run(*qseed, *qsteps, Options{uncheckedForBench: true})
	l := lab.New()
	type e struct {
		i    int
		line string
		d    time.Duration
		virt time.Duration
	}
	var es []e
	for i, line := range r.Script {
		if strings.HasPrefix(line, "check invariants") || strings.HasPrefix(line, "#") {
			continue
		}
		st := time.Now()
		var v0 time.Duration
		if l.Cluster() != nil {
			v0 = l.Cluster().Elapsed()
		}
		out, err := l.Run(line)
		_ = out
		_ = err
		es = append(es, e{i, line, time.Since(st), l.Cluster().Elapsed() - v0})
	}
	slices.SortFunc(es, func(a, b e) int { return int(b.d - a.d) })
	for _, x := range es[:15] {
		fmt.Printf("%5d %-80s %v virt=%v\n", x.i, x.line, x.d, x.virt)
	}
}

var qline = flag.Int("qline", 0, "")
var qdur = flag.Duration("qdur", 2*time.Second, "")

func TestEvents(t *testing.T) {
	if *qseed == 0 || *qline == 0 {
		t.Skip()
	}
	r := Run(*qseed, *qsteps, Options{uncheckedForBench: true})
	l := lab.New()
	for _, line := range r.Script[:*qline] {
		if strings.HasPrefix(line, "check invariants") {
			continue
		}
		l.Run(line)
	}
	fmt.Println(r.Script[*qline])
	c := l.Cluster()
	counts := map[string]int{}
	end := c.Elapsed() + *qdur
	n := 0
	for c.Elapsed() < end {
		name, _ := c.Step()
		f := strings.Fields(name)
		k := name
		if len(f) > 2 {
			k = f[0] + " " + f[1]
		}
		counts[k]++
		n++
	}
	fmt.Println("events in 2s:", n)
	var ks []string
	for k := range counts {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, func(a, b string) int { return counts[b] - counts[a] })
	for _, k := range ks[:min(20, len(ks))] {
		fmt.Println(counts[k], k)
	}
	out, _ := l.Run("show network")
	fmt.Println(out[:min(2000, len(out))])
}
