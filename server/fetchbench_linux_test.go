//go:build linux

package server

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkRecordFetchZeroCopy is issue 14's "zero-copy, measured": in one
// run over loopback, the record fetch endpoint (the real handler, behind
// the real server, on a segment file a lab wrote) against a bare sendfile
// loop and a user-space copy of the same bytes. The three servers run in a
// child process (this test binary again, TestFetchBenchChild), so the CPU
// measured is the serving side's alone: the child reports its own
// getrusage before and after each batch of fetches, and the client's reads
// happen in this process. It reports ratios against the bare sendfile loop
// and the copy measured in the same run, never absolute timings as pass or
// fail: endpoint/bare (issue 14's target: >= 0.8) and
// endpoint-cpu/copy-cpu (target: < 1).
func BenchmarkRecordFetchZeroCopy(b *testing.B) {
	child := startFetchBenchChild(b)
	defer child.stop()
	r := child.ready
	clients := [fetchPaths]*fetchClient{newFetchClient(), newFetchClient(), newFetchClient()}
	for _, c := range clients {
		defer c.close()
	}
	// Warm up (connections, page cache) and check that the three paths
	// send the same bytes, the segment's.
	var sums [fetchPaths][32]byte
	for p, c := range clients {
		if err := c.fetchInto(r.URLs[p], r.Bytes, func(b []byte) { sums[p] = sha256.Sum256(b) }); err != nil {
			b.Fatal(err)
		}
	}
	if sums[pathEndpoint] != sums[pathBare] || sums[pathCopy] != sums[pathBare] {
		b.Fatal("the three paths did not send the same bytes")
	}
	idle := child.idleCPU(b, 200*time.Millisecond)
	// Each path moves about 64 MiB per round, in whole fetches of the
	// segment region.
	perRound := max(1, int((64<<20)/r.Bytes))
	var totals [fetchPaths]pathTotals
	b.SetBytes(int64(fetchPaths) * int64(perRound) * r.Bytes)
	b.ResetTimer()
	for i := range b.N {
		// Rotate who goes first, so no path always follows another.
		for k := range fetchPaths {
			p := fetchPath((i + int(k)) % int(fetchPaths))
			cpu0 := child.cpu(b)
			t0 := time.Now()
			for range perRound {
				if err := clients[p].fetch(r.URLs[p], r.Bytes); err != nil {
					b.Fatal(err)
				}
			}
			totals[p].elapsed += time.Since(t0)
			totals[p].cpu += child.cpu(b) - cpu0
			totals[p].bytes += int64(perRound) * r.Bytes
			totals[p].fetches += perRound
		}
	}
	b.StopTimer()
	for p, name := range [fetchPaths]string{"endpoint", "bare", "copy"} {
		b.ReportMetric(totals[p].bytesPerSecond()/1e6, name+"-MB/s")
		b.ReportMetric(float64(totals[p].cpuPerGiB())/float64(time.Millisecond), name+"-cpu-ms/GiB")
	}
	endpointOverBare := totals[pathEndpoint].bytesPerSecond() / totals[pathBare].bytesPerSecond()
	cpuOverCopy := float64(totals[pathEndpoint].cpuPerGiB()) / float64(totals[pathCopy].cpuPerGiB())
	b.ReportMetric(endpointOverBare, "endpoint/bare")
	b.ReportMetric(cpuOverCopy, "endpoint-cpu/copy-cpu")
	b.ReportMetric(totals[pathCopy].bytesPerSecond()/totals[pathBare].bytesPerSecond(), "copy/bare")
	b.Logf("region: %d bytes of %s; the idle server used %.1f%% of a core, counted in every path's CPU",
		r.Bytes, r.Segment, 100*idle)
}

// fetchInto is fetch that hands the whole body to check.
func (fc *fetchClient) fetchInto(url string, want int64, check func([]byte)) error {
	resp, err := fc.http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || int64(len(body)) != want {
		return fmt.Errorf("GET %s: status %d, %d bytes, want 200 and %d bytes: %.200s", url, resp.StatusCode, len(body), want, body)
	}
	check(body)
	return nil
}

const fetchBenchChildEnv = "LOGLAB_FETCHBENCH_CHILD"

// fetchBenchReady is the child's first line: where its three paths are.
type fetchBenchReady struct {
	URLs    [fetchPaths]string
	Bytes   int64
	Segment string
}

type fetchBenchChild struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Scanner
	ready fetchBenchReady
}

// childLinePrefix marks the child's protocol lines among what the test
// framework prints.
const childLinePrefix = "fetchbench: "

func startFetchBenchChild(b *testing.B) *fetchBenchChild {
	b.Helper()
	args := []string{"-test.run=^TestFetchBenchChild$", "-test.count=1", "-test.v=false"}
	// LOGLAB_FETCHBENCH_CPUPROFILE=FILE: the server process's CPU profile,
	// to see where the endpoint's time goes beyond sendfile's.
	if prof := os.Getenv("LOGLAB_FETCHBENCH_CPUPROFILE"); prof != "" {
		args = append(args, "-test.cpuprofile="+prof)
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), fetchBenchChildEnv+"=1")
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	c := &fetchBenchChild{cmd: cmd, in: in, out: bufio.NewScanner(out)}
	if err := json.Unmarshal([]byte(c.line(b)), &c.ready); err != nil {
		c.stop()
		b.Fatal(err)
	}
	return c
}

// line is the child's next protocol line.
func (c *fetchBenchChild) line(b *testing.B) string {
	b.Helper()
	for c.out.Scan() {
		if l, ok := strings.CutPrefix(c.out.Text(), childLinePrefix); ok {
			return l
		}
	}
	b.Fatalf("the fetch benchmark's server process ended: %v", c.out.Err())
	return ""
}

// cpu asks the child for the CPU it has used so far.
func (c *fetchBenchChild) cpu(b *testing.B) time.Duration {
	b.Helper()
	if _, err := io.WriteString(c.in, "cpu\n"); err != nil {
		b.Fatal(err)
	}
	ns, err := strconv.ParseInt(c.line(b), 10, 64)
	if err != nil {
		b.Fatal(err)
	}
	return time.Duration(ns)
}

// idleCPU is the share of a core the child uses while nobody fetches.
func (c *fetchBenchChild) idleCPU(b *testing.B, d time.Duration) float64 {
	cpu0 := c.cpu(b)
	t0 := time.Now()
	time.Sleep(d)
	return float64(c.cpu(b)-cpu0) / float64(time.Since(t0))
}

func (c *fetchBenchChild) stop() {
	c.in.Close() // the child ends at EOF on its stdin
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		c.cmd.Process.Kill()
		<-done
	}
}

// fetchBenchLines make the child's cluster: one broker, one partition
// with rf=1 so the lab's 8 MiB per cluster (lab.MaxBytesPerCluster) goes
// to one segment file: seven produces of 1,000 records of 1,000 bytes
// (each at the 1 MiB a produce may send), about 7.6 MB of RecordBatch v2
// batches of 16 KiB (batch.size's default) written by the lab.
func fetchBenchLines() []string {
	value := strings.Repeat("x", 1000)
	lines := []string{
		"cluster brokers=1 controllers=1 seed=14",
		"topic create bench partitions=1 rf=1",
	}
	for range 7 {
		lines = append(lines, "produce bench partition=0 count=1000 value="+value)
	}
	return lines
}

// TestFetchBenchChild is the benchmark's server process, not a test: it
// runs only when BenchmarkRecordFetchZeroCopy starts it. It writes the
// segment with a lab on a data directory, serves the endpoint (the whole
// server's handler), the bare sendfile loop and the copy on three loopback
// listeners, prints where they are, then answers "cpu" lines on stdin
// with its getrusage until stdin closes.
func TestFetchBenchChild(t *testing.T) {
	if os.Getenv(fetchBenchChildEnv) == "" {
		t.Skip("the server process of BenchmarkRecordFetchZeroCopy (make bench)")
	}
	s, err := New(Options{StaticDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, line := range fetchBenchLines() {
		if e := s.live.run(line); !e.OK {
			t.Fatalf("%.80s: %s", line, e.Output)
		}
	}
	// The endpoint shares the per-address command budget (10 a second);
	// the benchmark fetches far faster from one address. The limiter
	// still runs on every fetch (its cost is measured), on a clock that
	// moves a second per call, so its bucket is full every time.
	var clock time.Time
	s.now = func() time.Time { clock = clock.Add(time.Second); return clock }

	s.live.mu.Lock()
	r, err := s.live.largestFetchRegion()
	s.live.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	ls, err := startLoopbackServers(r, s.Handler())
	if err != nil {
		t.Fatal(err)
	}
	defer ls.close()
	ready, err := json.Marshal(fetchBenchReady{URLs: ls.urls, Bytes: r.n, Segment: r.relativeToDir})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("%s%s\n", childLinePrefix, ready)
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		if in.Text() == "cpu" {
			cpu, _ := processCPU()
			fmt.Printf("%s%d\n", childLinePrefix, cpu.Nanoseconds())
		}
	}
}
