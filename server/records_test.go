package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/log"
	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/internal/syncbuf"
)

// newDiskTestServer is a server whose live cluster keeps its files in a
// temporary data directory, behind a real TCP listener (where net/http's
// sendfile path exists), with topic payments (1 partition, rf=3).
func newDiskTestServer(t *testing.T, lines ...string) (*Server, *httptest.Server) {
	t.Helper()
	// The log is kept and shown when the test fails: a command that
	// panics is answered with one line, and the stack is only in the log.
	var logged syncbuf.Buffer
	s, err := New(Options{StaticDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(&logged, nil)), DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(instructorHandler(s))
	t.Cleanup(func() {
		ts.Close()
		s.Close()
		if t.Failed() {
			t.Logf("server log:\n%s", logged.String())
		}
	})
	for _, line := range append([]string{"topic create payments partitions=1 rf=3"}, lines...) {
		if e := s.live.run(line); !e.OK {
			t.Fatalf("%s: %s", line, e.Output)
		}
	}
	return s, ts
}

// leaderOf returns the leader's replica of payments/0; call it with the
// session's mutex free.
func leaderOf(t *testing.T, s *Server) (*broker.Replica, int) {
	t.Helper()
	s.live.mu.Lock()
	defer s.live.mu.Unlock()
	r, id, err := s.live.lab.Cluster().Replica("payments", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	return r, id
}

// expectedBytes is what the log itself reads for a fetch, under the mutex.
func expectedBytes(t *testing.T, s *Server, from, maxBytes, bound int64) []byte {
	t.Helper()
	r, _ := leaderOf(t, s)
	s.live.mu.Lock()
	defer s.live.mu.Unlock()
	fd, err := r.Log.Read(from, maxBytes, bound)
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	for _, sl := range fd.Slices {
		b, err := sl.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b...)
	}
	return out
}

func fetchURL(ts *httptest.Server, topic, partition, query string) string {
	return ts.URL + "/api/v1/clusters/live/topics/" + topic + "/partitions/" + partition + "/records?" + query
}

func httpGet(t *testing.T, url string) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// decodeAll decodes concatenated batches.
func decodeAll(t *testing.T, raw []byte) []record.Batch {
	t.Helper()
	var out []record.Batch
	for len(raw) > 0 {
		b, n, err := record.Decode(raw)
		if err != nil {
			t.Fatalf("the fetched bytes do not decode: %v", err)
		}
		out, raw = append(out, b), raw[n:]
	}
	return out
}

func TestRecordFetchSendsTheSegmentBytesWithSendfile(t *testing.T) {
	s, ts := newDiskTestServer(t, "produce payments value=a count=3 partition=0", "produce payments value=b count=3 partition=0", "tick 2s")
	r, leader := leaderOf(t, s)
	if r.HW < 6 {
		t.Fatalf("the high watermark is %d, want 6 after the tick", r.HW)
	}
	zeroBefore, copiedBefore := zeroCopyFetches.Load(), copiedFetches.Load()
	resp, body := httpGet(t, fetchURL(ts, "payments", "0", "offset=0"))
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/octet-stream" {
		t.Fatalf("status %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	// The same bytes as in the leader's segment file on disk.
	onDisk, err := os.ReadFile(filepath.Join(s.live.dataDir, fmt.Sprintf("broker-%d", leader), "payments-0", log.FileName(0, log.LogSuffix)))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(body, onDisk) || !bytes.Equal(body, expectedBytes(t, s, 0, 1<<20, r.HW)) {
		t.Fatalf("served %d bytes, the segment holds %d: not the same bytes", len(body), len(onDisk))
	}
	var offsets []int64
	for _, b := range decodeAll(t, body) {
		for _, rec := range b.Records {
			offsets = append(offsets, b.Offset(rec))
		}
	}
	if len(offsets) != 6 || offsets[0] != 0 || offsets[5] != 5 {
		t.Errorf("decoded offsets %v, want 0..5", offsets)
	}
	if got := resp.Header.Get("X-Kafka-High-Watermark"); got != strconv.FormatInt(r.HW, 10) {
		t.Errorf("X-Kafka-High-Watermark %q, want %d", got, r.HW)
	}
	// Over a real TCP connection, the bytes went to net/http's ReadFrom
	// (sendfile), never through the user-space copy.
	if zeroCopyFetches.Load()-zeroBefore != 1 || copiedFetches.Load() != copiedBefore {
		t.Errorf("zero-copy fetches +%d, copied +%d; want +1 and +0", zeroCopyFetches.Load()-zeroBefore, copiedFetches.Load()-copiedBefore)
	}
}

// The counter tells the paths apart: a writer without ReadFrom (a
// recorder, as behind a wrapping middleware) is served by the copy.
func TestRecordFetchWithoutReadFromIsCountedAsACopy(t *testing.T) {
	s, _ := newDiskTestServer(t, "produce payments value=a count=3 partition=0", "tick 2s")
	zeroBefore, copiedBefore := zeroCopyFetches.Load(), copiedFetches.Load()
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/clusters/live/topics/payments/partitions/0/records?offset=0", nil))
	if rec.Code != http.StatusOK || len(decodeAll(t, rec.Body.Bytes())) == 0 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	if copiedFetches.Load()-copiedBefore != 1 || zeroCopyFetches.Load() != zeroBefore {
		t.Errorf("copied +%d, zero-copy +%d; want +1 and +0", copiedFetches.Load()-copiedBefore, zeroCopyFetches.Load()-zeroBefore)
	}
}

func TestRecordFetchStartsAtTheBatchHoldingTheOffset(t *testing.T) {
	s, ts := newDiskTestServer(t, "produce payments value=a count=3 partition=0", "produce payments value=b count=3 partition=0", "tick 2s")
	r, _ := leaderOf(t, s)
	s.live.mu.Lock()
	batches, err := r.Log.BatchesFrom(0)
	s.live.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	// A batch holding more than one offset, and an offset inside it.
	var holding record.BatchHeader
	for _, b := range batches {
		if b.Header.LastOffset() > b.Header.BaseOffset {
			holding = b.Header
			break
		}
	}
	if holding.LastOffset() == holding.BaseOffset {
		t.Fatalf("no batch holds several records: %+v", batches)
	}
	mid := holding.BaseOffset + 1
	resp, body := httpGet(t, fetchURL(ts, "payments", "0", fmt.Sprintf("offset=%d&max_bytes=1", mid)))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	got := decodeAll(t, body)
	// max_bytes=1: still one whole batch (KIP-74), the one holding mid.
	if len(got) != 1 || got[0].BaseOffset != holding.BaseOffset {
		t.Fatalf("got %d batches from %v, want the one batch from %d", len(got), got, holding.BaseOffset)
	}
	if h := resp.Header.Get("X-Kafka-First-Batch-Offset"); h != strconv.FormatInt(holding.BaseOffset, 10) {
		t.Errorf("X-Kafka-First-Batch-Offset %q, want %d", h, holding.BaseOffset)
	}
	if !bytes.Equal(body, expectedBytes(t, s, mid, 1, r.HW)) {
		t.Error("the bytes differ from the log's own read")
	}
}

func TestRecordFetchStopsAtTheHighWatermark(t *testing.T) {
	s, ts := newDiskTestServer(t, "produce payments value=a count=3 partition=0", "tick 2s")
	_, leader := leaderOf(t, s)
	// With both followers down, an acks=1 write lands on the leader alone:
	// the high watermark stays behind it until the ISR shrinks.
	for id := 1; id <= 3; id++ {
		if id != leader {
			if e := s.live.run(fmt.Sprintf("broker crash %d", id)); !e.OK {
				t.Fatal(e.Output)
			}
		}
	}
	for _, line := range []string{"producer create one acks=1", "produce payments value=c count=3 partition=0 producer=one"} {
		if e := s.live.run(line); !e.OK {
			t.Fatalf("%s: %s", line, e.Output)
		}
	}
	r, _ := leaderOf(t, s)
	s.live.mu.Lock()
	hw, leo := r.HW, r.Log.EndOffset()
	s.live.mu.Unlock()
	if hw >= leo {
		t.Fatalf("high watermark %d, log end %d: nothing to hold back, the test proves nothing", hw, leo)
	}
	resp, body := httpGet(t, fetchURL(ts, "payments", "0", "offset=0"))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	for _, b := range decodeAll(t, body) {
		if b.LastOffset() >= hw {
			t.Errorf("served offset %d, at or beyond the high watermark %d", b.LastOffset(), hw)
		}
	}
	// Between the high watermark and the log end: in range, but empty.
	resp, body = httpGet(t, fetchURL(ts, "payments", "0", fmt.Sprintf("offset=%d", hw)))
	if resp.StatusCode != http.StatusOK || len(body) != 0 {
		t.Errorf("a fetch at the high watermark: status %d, %d bytes; want 200 and none", resp.StatusCode, len(body))
	}
}

func TestRecordFetchJSONDecodesTheRecords(t *testing.T) {
	_, ts := newDiskTestServer(t, "produce payments key=k value=hello count=2 partition=0", "tick 2s")
	resp, body := httpGet(t, fetchURL(ts, "payments", "0", "offset=1&format=json"))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	var got decodedFetch
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Records) == 0 || got.Records[len(got.Records)-1].Offset != 1 || got.Records[0].Value == nil || *got.Records[0].Value != "aGVsbG8=" {
		t.Errorf("decoded %s, want the batch holding offset 1 with value hello (base64)", body)
	}
}

func TestRecordFetchErrorsCarryKafkasNames(t *testing.T) {
	s, ts := newDiskTestServer(t, "produce payments value=a count=3 partition=0", "tick 2s")
	for _, tc := range []struct {
		topic, partition, query string
		status                  int
		name                    string
	}{
		{"payments", "0", "offset=4", http.StatusRequestedRangeNotSatisfiable, "OFFSET_OUT_OF_RANGE"},
		{"payments", "0", "offset=-1", http.StatusRequestedRangeNotSatisfiable, "OFFSET_OUT_OF_RANGE"},
		{"nosuch", "0", "offset=0", http.StatusNotFound, "UNKNOWN_TOPIC_OR_PARTITION"},
		{"payments", "7", "offset=0", http.StatusNotFound, "UNKNOWN_TOPIC_OR_PARTITION"},
		{"payments", "x", "offset=0", http.StatusBadRequest, "INVALID_REQUEST"},
		{"payments", "0", "", http.StatusBadRequest, "INVALID_REQUEST"},
		{"payments", "0", "offset=zero", http.StatusBadRequest, "INVALID_REQUEST"},
		{"payments", "0", "offset=0&max_bytes=-1", http.StatusBadRequest, "INVALID_REQUEST"},
		{"payments", "0", "offset=0&isolation_level=dirty", http.StatusBadRequest, "INVALID_REQUEST"},
		{"payments", "0", "offset=0&format=xml", http.StatusBadRequest, "INVALID_REQUEST"},
		{"..", "0", "offset=0", http.StatusBadRequest, "INVALID_TOPIC_EXCEPTION"},
		{"a%2F..%2F..%2Fetc", "0", "offset=0", http.StatusBadRequest, "INVALID_TOPIC_EXCEPTION"},
		{"pay$ments", "0", "offset=0", http.StatusBadRequest, "INVALID_TOPIC_EXCEPTION"},
	} {
		resp, body := httpGet(t, fetchURL(ts, tc.topic, tc.partition, tc.query))
		var e fetchError
		if err := json.Unmarshal(body, &e); err != nil || resp.StatusCode != tc.status || e.Error != tc.name || e.Message == "" {
			t.Errorf("%s/%s?%s: status %d %s, want %d %s", tc.topic, tc.partition, tc.query, resp.StatusCode, body, tc.status, tc.name)
		}
		s.apiLimiter = clientLimiters{} // many requests from one address: not what this test is about
	}
	// Every replica down: no leader.
	for _, line := range []string{"broker crash 1", "broker crash 2", "broker crash 3"} {
		if e := s.live.run(line); !e.OK {
			t.Fatal(e.Output)
		}
	}
	resp, body := httpGet(t, fetchURL(ts, "payments", "0", "offset=0"))
	var e fetchError
	if json.Unmarshal(body, &e); resp.StatusCode != http.StatusServiceUnavailable || e.Error != "NOT_LEADER_OR_FOLLOWER" {
		t.Errorf("with every broker down: status %d %s, want 503 NOT_LEADER_OR_FOLLOWER", resp.StatusCode, body)
	}
}

func TestRecordFetchNeedsADataDirectory(t *testing.T) {
	_, ts := newTestServer(t)
	resp, body := httpGet(t, fetchURL(ts, "orders", "0", "offset=0"))
	var e fetchError
	if err := json.Unmarshal(body, &e); err != nil || resp.StatusCode != http.StatusNotImplemented || e.Error != "INVALID_REQUEST" || !bytes.Contains(body, []byte("-data-dir")) {
		t.Errorf("in memory: status %d %s, want 501 INVALID_REQUEST naming -data-dir", resp.StatusCode, body)
	}
}

// read_committed stops at the last stable offset: the records of an open
// transaction, below the high watermark, are not served until it ends.
func TestRecordFetchReadCommittedStopsAtTheLastStableOffset(t *testing.T) {
	s, ts := newDiskTestServer(t, "produce payments value=plain count=2 partition=0", "tick 2s",
		"producer create app transactional.id=pay-app", "txn begin app",
		"produce payments value=open partition=0 producer=app", "tick 2s")
	r, _ := leaderOf(t, s)
	s.live.mu.Lock()
	hw, lso := r.HW, r.LastStableOffset()
	s.live.mu.Unlock()
	if lso != 2 || hw <= lso {
		t.Fatalf("LSO %d, HW %d: want the open transaction at 2 holding the LSO below the HW", lso, hw)
	}
	lastServed := func(query string) int64 {
		resp, body := httpGet(t, fetchURL(ts, "payments", "0", query))
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d: %s", query, resp.StatusCode, body)
		}
		last := int64(-1)
		for _, b := range decodeAll(t, body) {
			last = b.LastOffset()
		}
		return last
	}
	if last := lastServed("offset=0&isolation_level=read_committed"); last != lso-1 {
		t.Errorf("read_committed served up to %d, want %d (below the LSO %d)", last, lso-1, lso)
	}
	if last := lastServed("offset=0"); last < lso {
		t.Errorf("read_uncommitted served up to %d, want the open transaction's record at %d too", last, lso)
	}
	if e := s.live.run("txn commit app"); !e.OK {
		t.Fatal(e.Output)
	}
	if e := s.live.run("tick 2s"); !e.OK {
		t.Fatal(e.Output)
	}
	if last := lastServed("offset=0&isolation_level=read_committed"); last <= lso {
		t.Errorf("after the commit read_committed served up to %d, want past %d", last, lso)
	}
}

// A fetch takes the cluster's mutex as a command does, so a loop of them
// from one address runs into the same per-address budget.
func TestRecordFetchesShareTheCommandRateLimit(t *testing.T) {
	s, ts := newDiskTestServer(t, "produce payments value=a partition=0", "tick 2s")
	frozen := time.Now()
	s.now = func() time.Time { return frozen } // no refill however slow the machine
	var refused *http.Response
	var body []byte
	for range commandBurst + 5 {
		resp, b := httpGet(t, fetchURL(ts, "payments", "0", "offset=0"))
		if resp.StatusCode == http.StatusTooManyRequests {
			refused, body = resp, b
			break
		}
	}
	if refused == nil {
		t.Fatalf("%d fetches at once were all served; want a refusal after the burst of %d", commandBurst+5, commandBurst)
	}
	var e fetchError
	if err := json.Unmarshal(body, &e); err != nil || e.Error != "THROTTLING_QUOTA_EXCEEDED" || refused.Header.Get("Retry-After") == "" {
		t.Errorf("refusal %s (Retry-After %q), want THROTTLING_QUOTA_EXCEEDED with Retry-After", body, refused.Header.Get("Retry-After"))
	}
}
