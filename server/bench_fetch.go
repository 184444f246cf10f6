package server

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"
)

// `bench fetch [MiB]` measures, on this machine and this cluster's own
// segment file, how much zero-copy saves: the record
// fetch endpoint against a bare sendfile loop and a user-space copy of the
// same bytes, each over loopback HTTP. BenchmarkRecordFetchZeroCopy
// (fetchbench_linux_test.go) makes the same comparison with the real
// endpoint in a child process, so the server's CPU is measured apart from
// the client's; this command is the short live version a lesson runs.

const (
	// benchFetchDefaultMiB and benchFetchMaxMiB bound what each path of
	// `bench fetch` moves: the command holds the cluster's mutex while it
	// runs, so it must stay short (about a second at loopback speeds).
	benchFetchDefaultMiB = 256
	benchFetchMaxMiB     = 1024
	// benchFetchMaxTime stops a run early on a slow or busy machine.
	benchFetchMaxTime = 3 * time.Second
	// benchFetchMinBytes: below this a fetch is dominated by the request,
	// not by moving bytes, and the comparison says nothing about copies.
	benchFetchMinBytes = 256 << 10
	// copyBufferSize is what io.Copy uses when neither side offers a
	// shortcut: the user-space path reads 32 KiB into the process and
	// writes it out again.
	copyBufferSize = 32 << 10
)

// fetchPath is one of the three ways the benchmark sends the same bytes.
type fetchPath int

const (
	pathEndpoint fetchPath = iota // the record fetch endpoint's code (answerRaw)
	pathBare                      // io.Copy(w, io.LimitReader(f, n)): sendfile, nothing else
	pathCopy                      // read into a buffer, write from it: no sendfile
	fetchPaths
)

func (p fetchPath) String() string {
	return [...]string{"endpoint (sendfile)", "bare sendfile", "user-space copy"}[p]
}

// fetchRegion is the byte region of a segment file every path serves: the
// first fetch of a partition from its log start, as Locate found it.
type fetchRegion struct {
	file          string // absolute path of the .log file
	pos, n        int64
	topic         string
	partition     int
	offset        int64 // the fetch's offset (the log start)
	hw, logStart  int64
	firstBatch    int64
	relativeToDir string // the segment as Locate names it, for the output
}

// open opens the region's file for one request: each fetch has
// its own file position, as the endpoint's fetches have.
func (r fetchRegion) open() (*os.File, error) {
	f, err := os.Open(r.file)
	if err != nil {
		return nil, err
	}
	if _, err := f.Seek(r.pos, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// bareSendfileHandler is the limit the endpoint is measured against: a
// plain net/http handler doing io.Copy(w, io.LimitReader(f, n)), which
// net/http hands to sendfile(2), with no routing, lookup or headers of
// its own.
func bareSendfileHandler(r fetchRegion) http.HandlerFunc {
	return regionHandler(r, func(w io.Writer, body io.Reader) { io.Copy(w, body) })
}

// writerOnly and readerOnly hide ReadFrom and WriteTo, so io.CopyBuffer
// can only read into its buffer and write from it: the copy a broker makes
// when it must touch the bytes (TLS encrypts them in user space).
type writerOnly struct{ io.Writer }
type readerOnly struct{ io.Reader }

// userCopyHandler serves the same bytes through a user-space buffer.
func userCopyHandler(r fetchRegion) http.HandlerFunc {
	return regionHandler(r, func(w io.Writer, body io.Reader) {
		io.CopyBuffer(writerOnly{w}, readerOnly{body}, make([]byte, copyBufferSize))
	})
}

// regionHandler answers the region's bytes with send, after the header:
// written first, as the endpoint does, so not even the first 512 bytes go
// through net/http's sniffing buffer.
func regionHandler(r fetchRegion, send func(w io.Writer, body io.Reader)) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		f, err := r.open()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		defer f.Close()
		w.Header().Set("Content-Length", strconv.FormatInt(r.n, 10))
		w.WriteHeader(http.StatusOK)
		if err := http.NewResponseController(w).Flush(); err != nil {
			return
		}
		send(w, io.LimitReader(f, r.n))
	}
}

// recordsRoute is the record fetch endpoint's route.
const recordsRoute = "/api/v1/clusters/live/topics/:topic/partitions/:partition/records"

// endpointPathHandler is the endpoint as `bench fetch` can run it while it
// holds the cluster's mutex: the same echo routing, parameter parsing and
// answerRaw (headers, flush, sendfile through the unwrapped writer), with
// the region located once beforehand instead of under the mutex for every
// fetch. The benchmark measures the real handler, lookup included.
func endpointPathHandler(r fetchRegion) http.Handler {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.GET(recordsRoute, func(c echo.Context) error {
		q := c.QueryParams()
		p, name, err := parseFetchParams(c.Param("topic"), c.Param("partition"), q.Get("offset"), q.Get("max_bytes"), q.Get("isolation_level"), q.Get("format"))
		if err != nil {
			return answerFetchError(c, http.StatusBadRequest, name, "%v", err)
		}
		if p.topic != r.topic || p.partition != r.partition || p.offset != r.offset {
			return answerFetchError(c, http.StatusNotFound, "UNKNOWN_TOPIC_OR_PARTITION", "bench fetch serves %s/%d from offset %d only", r.topic, r.partition, r.offset)
		}
		f, err := os.Open(r.file)
		if err != nil {
			return answerFetchError(c, http.StatusInternalServerError, "KAFKA_STORAGE_ERROR", "%v", err)
		}
		defer f.Close()
		h := c.Response().Header()
		h.Set("X-Kafka-First-Batch-Offset", strconv.FormatInt(r.firstBatch, 10))
		h.Set("X-Kafka-High-Watermark", strconv.FormatInt(r.hw, 10))
		h.Set("X-Kafka-Log-Start-Offset", strconv.FormatInt(r.logStart, 10))
		fd := fetched{file: f, hw: r.hw, logStart: r.logStart}
		fd.loc.Position, fd.loc.Length, fd.loc.FirstBatchOffset = r.pos, r.n, r.firstBatch
		return answerRaw(c, fd)
	})
	return e
}

// recordsPath is the endpoint's URL path for a region's fetch.
func (r fetchRegion) recordsPath() string {
	return fmt.Sprintf("/api/v1/clusters/live/topics/%s/partitions/%d/records?offset=%d&max_bytes=%d", r.topic, r.partition, r.offset, brokerFetchMaxBytes)
}

// loopbackServers serve the three paths on 127.0.0.1, each on its own
// listener, until close.
type loopbackServers struct {
	urls    [fetchPaths]string
	servers []*http.Server
}

func startLoopbackServers(r fetchRegion, endpoint http.Handler) (*loopbackServers, error) {
	ls := &loopbackServers{}
	handlers := [fetchPaths]http.Handler{endpoint, bareSendfileHandler(r), userCopyHandler(r)}
	paths := [fetchPaths]string{r.recordsPath(), "/region", "/region"}
	for i, h := range handlers {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			ls.close()
			return nil, err
		}
		srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
		ls.servers = append(ls.servers, srv)
		go srv.Serve(ln)
		ls.urls[i] = "http://" + ln.Addr().String() + paths[i]
	}
	return ls, nil
}

func (ls *loopbackServers) close() {
	for _, srv := range ls.servers {
		srv.Close()
	}
}

// fetchClient reads a path's responses over one kept-alive connection into
// a 1 MiB buffer, so that reading costs the client as few system calls as
// the kernel allows and the paths differ only on the serving side.
type fetchClient struct {
	http *http.Client
	buf  []byte
}

func newFetchClient() *fetchClient {
	return &fetchClient{
		http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}, Timeout: time.Minute},
		buf:  make([]byte, 1<<20),
	}
}

// fetch GETs url and reads the whole body, which must be want bytes long.
func (fc *fetchClient) fetch(url string, want int64) error {
	resp, err := fc.http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var got int64
	for {
		n, err := resp.Body.Read(fc.buf)
		got += int64(n)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	if resp.StatusCode != http.StatusOK || got != want {
		return fmt.Errorf("GET %s: status %d, %d bytes, want 200 and %d bytes", url, resp.StatusCode, got, want)
	}
	return nil
}

func (fc *fetchClient) close() { fc.http.CloseIdleConnections() }

// pathTotals is what one path moved, how long it took and what it cost.
type pathTotals struct {
	bytes   int64
	fetches int
	elapsed time.Duration
	cpu     time.Duration
}

func (t pathTotals) bytesPerSecond() float64 { return float64(t.bytes) / t.elapsed.Seconds() }

// cpuPerGiB is CPU time per GiB moved.
func (t pathTotals) cpuPerGiB() time.Duration {
	return time.Duration(float64(t.cpu) * float64(1<<30) / float64(t.bytes))
}

func init() {
	registerNativeCommand(&nativeCommand{
		name:  "bench",
		usage: fmt.Sprintf("bench fetch [MiB] (default %d, at most %d)", benchFetchDefaultMiB, benchFetchMaxMiB),
		summary: "measure, on this machine, the record fetch endpoint against a bare sendfile loop and a user-space copy, " +
			"sending the largest partition's first fetch from its segment file over loopback; the cluster waits while it runs",
		run: runBenchFetch,
	})
}

// benchFetchRunning is set while a `bench fetch` runs on any cluster.
var benchFetchRunning atomic.Bool

// benchFetchCooldown is the least time between two measurements on one
// cluster.
const benchFetchCooldown = 10 * time.Second

// runBenchFetch is `bench fetch [MiB]`, with s.mu held.
func runBenchFetch(s *liveSession, args []string) (string, error) {
	if len(args) == 0 || args[0] != "fetch" || len(args) > 2 {
		return "", errors.New("usage: bench fetch [MiB]")
	}
	mib := benchFetchDefaultMiB
	if len(args) == 2 {
		n, err := strconv.Atoi(args[1])
		if err != nil || n < 1 || n > benchFetchMaxMiB {
			return "", fmt.Errorf("bench fetch %s: MiB is a whole number from 1 to %d", args[1], benchFetchMaxMiB)
		}
		mib = n
	}
	// A measurement takes a core for seconds: one at a time on the whole
	// server (two at once would also spoil each other's figures), and not
	// again on one cluster within benchFetchCooldown, so a page or script
	// looping on it cannot keep a core from the room.
	if wait := s.benchDoneAt.Add(benchFetchCooldown).Sub(time.Now()); wait > 0 {
		return "", fmt.Errorf("bench fetch ran on this cluster moments ago: at most once per %v per cluster; try again in %v", benchFetchCooldown, wait.Round(time.Second))
	}
	if !benchFetchRunning.CompareAndSwap(false, true) {
		return "", errors.New("another bench fetch is running on this server (one at a time: each takes a core for a few seconds); try again in a moment")
	}
	defer benchFetchRunning.Store(false)
	r, err := s.largestFetchRegion()
	if err != nil {
		return "", err
	}
	totals, sendfiles, err := measureFetchPaths(r, int64(mib)<<20, benchFetchMaxTime)
	s.benchDoneAt = time.Now()
	if err != nil {
		return "", err
	}
	return formatBenchFetch(r, totals, sendfiles), nil
}

// largestFetchRegion finds, with s.mu held, the partition whose first
// fetch from the log start (up to the broker's fetch.max.bytes, 55 MiB,
// below the high watermark) is the largest region of a segment file.
func (s *liveSession) largestFetchRegion() (fetchRegion, error) {
	var best fetchRegion
	if s.dataDir == "" {
		return best, errors.New("bench fetch reads the cluster's segment files: this cluster runs in memory; start the server with `loglab serve -data-dir DIR`")
	}
	cl := s.lab.Cluster()
	if cl == nil {
		return best, errors.New("no cluster is running: start one with `cluster` and produce some records first")
	}
	for _, t := range cl.Topics() {
		for i := range t.Partitions {
			r, _, err := cl.Replica(t.Name, i, 0)
			if err != nil || !r.IsLeader() {
				continue
			}
			f, _, _, err := s.locateFetchLocked(fetchParams{topic: t.Name, partition: i, offset: r.Log.StartOffset(), maxBytes: brokerFetchMaxBytes})
			if err != nil || f.file == nil {
				continue
			}
			f.file.Close()
			if f.loc.Length > best.n {
				best = fetchRegion{
					file: filepath.Join(s.dataDir, filepath.FromSlash(f.loc.Path)), pos: f.loc.Position, n: f.loc.Length,
					topic: t.Name, partition: i, offset: r.Log.StartOffset(), hw: f.hw, logStart: f.logStart,
					firstBatch: f.loc.FirstBatchOffset, relativeToDir: f.loc.Path,
				}
			}
		}
	}
	if best.n < benchFetchMinBytes {
		return best, fmt.Errorf("bench fetch needs a partition whose first fetch is at least %d KiB below its high watermark (the largest is %d bytes): "+
			"a smaller fetch measures the request, not the copy; produce more records first", benchFetchMinBytes>>10, best.n)
	}
	return best, nil
}

// measureFetchPaths fetches the region over each path in turn, one fetch
// each per round, until each moved budget bytes or maxTime passed; it also
// returns how many of the endpoint's fetches answerRaw handed to sendfile.
// CPU is this process's (server and client together: the client's share is
// the same for every path, so the differences are the server's).
func measureFetchPaths(r fetchRegion, budget int64, maxTime time.Duration) ([fetchPaths]pathTotals, int64, error) {
	var totals [fetchPaths]pathTotals
	ls, err := startLoopbackServers(r, endpointPathHandler(r))
	if err != nil {
		return totals, 0, err
	}
	defer ls.close()
	clients := [fetchPaths]*fetchClient{newFetchClient(), newFetchClient(), newFetchClient()}
	for _, c := range clients {
		defer c.close()
	}
	// One fetch each first: connections open, the file in the page cache.
	for p, c := range clients {
		if err := c.fetch(ls.urls[p], r.n); err != nil {
			return totals, 0, err
		}
	}
	sendfileBefore := zeroCopyFetches.Load()
	start := time.Now()
	for round := 0; ; round++ {
		done := true
		for p := range fetchPaths {
			if totals[p].bytes < budget {
				done = false
			}
		}
		if done || time.Since(start) > maxTime {
			break
		}
		// Rotate who goes first, so no path always follows another.
		for k := range fetchPaths {
			p := fetchPath((round + int(k)) % int(fetchPaths))
			if totals[p].bytes >= budget {
				continue
			}
			cpu0, _ := processCPU()
			t0 := time.Now()
			if err := clients[p].fetch(ls.urls[p], r.n); err != nil {
				return totals, 0, err
			}
			totals[p].elapsed += time.Since(t0)
			cpu1, _ := processCPU()
			totals[p].cpu += cpu1 - cpu0
			totals[p].bytes += r.n
			totals[p].fetches++
		}
	}
	return totals, zeroCopyFetches.Load() - sendfileBefore, nil
}

func formatBenchFetch(r fetchRegion, t [fetchPaths]pathTotals, sendfiles int64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "bench fetch: %s/%d from offset %d: %s bytes of %s at position %d, sent %d times per path over loopback\n",
		r.topic, r.partition, r.offset, thousandsOf(r.n), r.relativeToDir, r.pos, t[pathEndpoint].fetches)
	_, cpuOK := processCPU()
	fmt.Fprintf(&b, "%-22s %10s %22s\n", "PATH", "MB/s", "CPU ms/GiB (process)")
	for p := range fetchPaths {
		cpu := "n/a"
		if cpuOK {
			cpu = fmt.Sprintf("%.0f", float64(t[p].cpuPerGiB())/float64(time.Millisecond))
		}
		fmt.Fprintf(&b, "%-22s %10.0f %22s\n", p, t[p].bytesPerSecond()/1e6, cpu)
	}
	fmt.Fprintf(&b, "endpoint/bare throughput: %.2f (loglab's budget: at least 0.8)\n",
		t[pathEndpoint].bytesPerSecond()/t[pathBare].bytesPerSecond())
	fmt.Fprintf(&b, "copy/bare throughput: %.2f\n", t[pathCopy].bytesPerSecond()/t[pathBare].bytesPerSecond())
	if cpuOK {
		fmt.Fprintf(&b, "endpoint/copy CPU per GiB: %.2f (target: below 1; server and client together, the client's share is the same for every path)\n",
			float64(t[pathEndpoint].cpuPerGiB())/float64(t[pathCopy].cpuPerGiB()))
	}
	fmt.Fprintf(&b, "endpoint fetches handed to sendfile: %d of %d", sendfiles, t[pathEndpoint].fetches)
	return b.String()
}

// thousandsOf writes n with thousands separators, as the lab does.
func thousandsOf(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
