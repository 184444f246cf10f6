package vopr

import (
	"flag"
	"fmt"
	"os"
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

var qn = flag.Int("qn", 0, "")
var qsteps = flag.Int("qsteps", 2000, "")

func TestMulti(t *testing.T) {
	if *qn == 0 {
		t.Skip()
	}
	opts := Options{}
	if *qmix == "neg" {
		opts.Acks = "1"
		opts.Mix = LeaderLossMix()
	}
	start := time.Now()
	bad := 0
	for s := uint64(1); s <= uint64(*qn); s++ {
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
