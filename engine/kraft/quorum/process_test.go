//go:build !js

package quorum

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/internal/freeport"
)

// testLogger shows hashicorp/raft's log with LOGLAB_RAFT_LOG=debug (or
// info, warn...), as newQuorum does.
func testLogger() hclog.Logger {
	if level := os.Getenv("LOGLAB_RAFT_LOG"); level != "" {
		return hclog.New(&hclog.LoggerOptions{Level: hclog.LevelFromString(level), Output: os.Stderr, TimeFormat: "15:04:05.000"})
	}
	return nil
}

// processQuorum is three controller processes in one test process.
type processQuorum struct {
	t     *testing.T
	cfgs  []ProcessConfig
	mu    sync.Mutex
	procs []*Process // procs[i] is controller i+1, nil while stopped
}

func newProcessQuorum(t *testing.T, n int) *processQuorum {
	addrs := freeport.Addrs(t, 2*n)
	voters, apis := addrs[:n], addrs[n:]
	dir := t.TempDir()
	pq := &processQuorum{t: t, procs: make([]*Process, n)}
	for id := 1; id <= n; id++ {
		pq.cfgs = append(pq.cfgs, ProcessConfig{
			Config: Config{Dir: dir, Logger: testLogger(), SnapshotThreshold: 16, TrailingLogs: 4, SnapshotInterval: 20 * time.Millisecond},
			ID:     id, Voters: voters, APIs: apis,
			Events: func(line string) { t.Log(line) },
		})
	}
	t.Cleanup(func() {
		for id := range pq.procs {
			pq.stop(id+1, false)
		}
	})
	for id := 1; id <= n; id++ {
		pq.start(id)
	}
	return pq
}

func (pq *processQuorum) start(id int) *Process {
	pq.t.Helper()
	p, err := NewProcess(pq.cfgs[id-1])
	if err != nil {
		pq.t.Fatal(err)
	}
	pq.mu.Lock()
	pq.procs[id-1] = p
	pq.mu.Unlock()
	return p
}

// stop stops controller id: gracefully (Close), or as a crash would.
func (pq *processQuorum) stop(id int, graceful bool) {
	pq.mu.Lock()
	p := pq.procs[id-1]
	pq.procs[id-1] = nil
	pq.mu.Unlock()
	if p == nil {
		return
	}
	var err error
	if graceful {
		err = p.Close()
	} else {
		err = p.halt()
	}
	if err != nil {
		pq.t.Errorf("stopping controller %d: %v", id, err)
	}
}

func (pq *processQuorum) remote() *Remote {
	r, err := NewRemote(RemoteConfig{APIs: pq.cfgs[0].APIs, LeaderWait: wait, RequestTimeout: wait})
	if err != nil {
		pq.t.Fatal(err)
	}
	pq.t.Cleanup(func() { r.Close() })
	return r
}

// awaitRemoteLeader waits for an active controller other than not.
func awaitRemoteLeader(t *testing.T, r *Remote, not int) int {
	t.Helper()
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		if l := r.Leader(); l != 0 && l != not {
			return l
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no active controller other than %d within %s: %+v", not, wait, r.Status())
	return 0
}

// awaitKnownLeader waits until controller id reports leader as the leader
// it knows, or another leader took over (the caller then asks again).
func awaitKnownLeader(t *testing.T, r *Remote, id, leader int) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		st := r.Status()
		if st[id-1].Leader == leader || leaderOf(st) == nil || leaderOf(st).ID != leader {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("controller %d did not learn that controller %d leads within %s: %+v", id, leader, wait, r.Status())
}

func getJSON(t *testing.T, url string, out any) int {
	t.Helper()
	client := http.Client{Timeout: wait}
	resp, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return resp.StatusCode
}

// awaitRecords waits until the controller serving api has applied want,
// reading its own copy (no active=1), as a curl on a follower would.
func awaitRecords(t *testing.T, api string, want []protocol.MetadataRecord) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		var resp readResponse
		getJSON(t, "http://"+api+"/read?from=0", &resp)
		if resp.End >= int64(len(want)) {
			if !reflect.DeepEqual(resp.Records, want) {
				t.Fatalf("controller %d (%s) holds\n%+v\nwant\n%+v", resp.Controller, resp.Role, resp.Records, want)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("controller %d applied %d records within %s, want %d", resp.Controller, resp.End, wait, len(want))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func remoteAppend(t *testing.T, r *Remote, recs []protocol.MetadataRecord, first int64) []protocol.MetadataRecord {
	t.Helper()
	got, err := r.Append(recs)
	if err != nil {
		t.Fatalf("Append: %v", err)
	}
	if len(got) != len(recs) || got[0].Offset != first {
		t.Fatalf("Append returned %+v, want %d records from offset %d", got, len(recs), first)
	}
	return got
}

// Three controller processes elect one, replicate what Remote appends to
// all three, fail over when the active one dies, and a restarted one
// catches up from its own files and the new leader.
func TestProcessQuorumFailsOverAndCatchesUp(t *testing.T) {
	pq := newProcessQuorum(t, 3)
	r := pq.remote()
	leader := awaitRemoteLeader(t, r, 0)
	t.Logf("controller %d is active", leader)

	var want []protocol.MetadataRecord
	want = append(want, remoteAppend(t, r, records(0, 3), 0)...)
	want = append(want, remoteAppend(t, r, records(3, 3), 3)...)
	for _, api := range pq.cfgs[0].APIs {
		awaitRecords(t, api, want)
	}
	if got := r.Read(0); !reflect.DeepEqual(got, want) {
		t.Fatalf("Remote.Read(0) = %+v", got)
	}
	if end := r.End(); end != int64(len(want)) {
		t.Fatalf("End() = %d, want %d", end, len(want))
	}
	if im := r.ActiveImage(); !reflect.DeepEqual(im, imageOf(want)) {
		t.Fatalf("ActiveImage differs:\n got %+v\nwant %+v", im, imageOf(want))
	}
	r.Settle()
	for _, s := range r.Status() {
		if s.Role == "shutdown" || len(s.Voters) != 3 || s.MetadataEnd != int64(len(want)) {
			t.Fatalf("status after settling: %+v", s)
		}
	}

	// The active controller dies without a word.
	pq.stop(leader, false)
	next := awaitRemoteLeader(t, r, leader)
	t.Logf("controller %d took over from controller %d", next, leader)
	if st := r.Status()[leader-1]; st.Role != "shutdown" || st.ID != leader {
		t.Fatalf("the stopped controller's status: %+v", st)
	}
	want = append(want, remoteAppend(t, r, records(6, 4), 6)...)

	// Back on its files, it catches up with what it missed.
	pq.start(leader)
	for _, api := range pq.cfgs[0].APIs {
		awaitRecords(t, api, want)
	}
	want = append(want, remoteAppend(t, r, records(10, 2), 10)...)
	for _, api := range pq.cfgs[0].APIs {
		awaitRecords(t, api, want)
	}
}

// A retried append commits once, and a follower sends appends to the
// active controller.
func TestProcessAppendIsExactlyOnceAndRedirected(t *testing.T) {
	pq := newProcessQuorum(t, 3)
	r := pq.remote()
	leader := awaitRemoteLeader(t, r, 0)
	follower := leader%3 + 1

	data, err := encodeEntry("retried-1", records(0, 2))
	if err != nil {
		t.Fatal(err)
	}
	var first, again appendResponse
	if err := r.onActive(http.MethodPost, "/append", data, &first); err != nil {
		t.Fatal(err)
	}
	// The same entry again, as a client whose answer was lost sends it,
	// this time to a follower, which redirects. On a loaded machine the
	// leadership can move meanwhile (the leader's lease is one heartbeat
	// timeout): then ask again, of the follower of the leader now.
	for deadline := time.Now().Add(wait); ; {
		// A follower redirects to the leader it knows: wait until it has
		// heard from this one (hashicorp/raft's followers learn the leader
		// from its first AppendEntries, which a loaded machine delays).
		awaitKnownLeader(t, r, follower, leader)
		code, apiErr, err := r.do(t.Context(), http.MethodPost, pq.cfgs[0].APIs[follower-1], "/append", data, &again)
		if err == nil && code == http.StatusMisdirectedRequest && apiErr.Leader == leader && apiErr.LeaderAPI == pq.cfgs[0].APIs[leader-1] {
			break
		}
		now := r.Leader()
		if now == leader || time.Now().After(deadline) {
			t.Fatalf("a follower answered %d %+v (%v), want 421 naming controller %d (the active controller is %d)", code, apiErr, err, leader, now)
		}
		t.Logf("the active controller moved from %d to %d; asking again", leader, now)
		leader = awaitRemoteLeader(t, r, 0)
		follower = leader%3 + 1
	}
	if err := r.onActive(http.MethodPost, "/append", data, &again); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(first, again) || r.End() != 2 {
		t.Fatalf("a retried append was committed twice: %+v then %+v, end %d", first, again, r.End())
	}
	remoteAppend(t, r, records(2, 1), 2)

	// A bad entry is refused, not retried.
	if err := r.onActive(http.MethodPost, "/append", []byte(`{"v":9}`), &again); err == nil || !strings.Contains(err.Error(), "unknown version 9") {
		t.Fatalf("a bad entry: %v", err)
	}
}

// Close hands leadership over before it stops: the quorum goes on at once.
func TestProcessCloseHandsOverLeadership(t *testing.T) {
	pq := newProcessQuorum(t, 3)
	r := pq.remote()
	leader := awaitRemoteLeader(t, r, 0)
	remoteAppend(t, r, records(0, 2), 0)
	pq.stop(leader, true)
	next := awaitRemoteLeader(t, r, leader)
	t.Logf("controller %d handed over to controller %d", leader, next)
	remoteAppend(t, r, records(2, 2), 2)
	if err := r.Crash(next); err == nil || !strings.Contains(err.Error(), "own process") {
		t.Fatalf("Crash: %v", err)
	}
	if err := r.Restart(leader); err == nil || !strings.Contains(err.Error(), "loglab controller -id") {
		t.Fatalf("Restart: %v", err)
	}
}

// Without a majority nothing commits: Append gives up with NOT_CONTROLLER.
func TestRemoteWithoutAMajority(t *testing.T) {
	pq := newProcessQuorum(t, 3)
	leader := awaitRemoteLeader(t, pq.remote(), 0)
	r, err := NewRemote(RemoteConfig{APIs: pq.cfgs[0].APIs, LeaderWait: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for id := 1; id <= 3; id++ {
		if id != leader {
			pq.stop(id, false)
		}
	}
	if _, err := r.Append(records(0, 1)); !errors.Is(err, ErrNotController) {
		t.Fatalf("Append without a majority: %v", err)
	}
}

func TestProcessParseVoters(t *testing.T) {
	got, err := ParseVoters("1=127.0.0.1:9091, 2@127.0.0.1:9092,3=localhost:9093")
	if err != nil || !reflect.DeepEqual(got, []string{"127.0.0.1:9091", "127.0.0.1:9092", "localhost:9093"}) {
		t.Fatalf("ParseVoters = %v, %v", got, err)
	}
	for in, want := range map[string]string{
		"":                                    "no voters",
		"1:127.0.0.1:9091":                    "want id=host:port",
		"x=127.0.0.1:9091":                    "id must be a number",
		"0=127.0.0.1:9091":                    "id must be a number",
		"1=127.0.0.1":                         "want host:port",
		"1=:9091":                             "no host",
		"1=127.0.0.1:http":                    "not a number",
		"1=127.0.0.1:9091,1=127.0.0.1:9092":   "listed twice",
		"1=127.0.0.1:9091,3=127.0.0.1:9093":   "controller 2 is missing",
		"1=127.0.0.1:9091,2=127.0.0.1:9091":   "both use",
		"1=a:1,2=a:2,3=a:3,4=a:4,5=a:5,6=a:6": "1 to 5",
	} {
		if _, err := ParseVoters(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseVoters(%q) = %v, want an error saying %q", in, err, want)
		}
	}
	if a, err := DefaultAPIAddr("127.0.0.1:9091"); err != nil || a != "127.0.0.1:10091" {
		t.Errorf("DefaultAPIAddr = %q, %v", a, err)
	}
	if _, err := DefaultAPIAddr("127.0.0.1:65000"); err == nil {
		t.Error("DefaultAPIAddr above 64535 should fail")
	}
	for _, cfg := range []ProcessConfig{
		{ID: 1, Voters: []string{"127.0.0.1:1"}},
		{ID: 2, Voters: []string{"127.0.0.1:1"}, Config: Config{Dir: t.TempDir()}},
		{ID: 1, Voters: []string{"127.0.0.1:1"}, Config: Config{Dir: t.TempDir(), SnapshotOnCommit: true}},
	} {
		if _, err := NewProcess(cfg); err == nil {
			t.Errorf("NewProcess(%+v) should fail", cfg)
		}
	}
}

// A controller process's transport replicates with plain AppendEntries
// calls: hashicorp/raft's pipelined replication can deadlock when a
// follower's answer ends the pipeline (raft issue #612), and the leader's
// Shutdown then never returns; Close once hung that way until the test
// timed out, after a leadership transfer on a loaded machine.
func TestProcessTransportDoesNotPipeline(t *testing.T) {
	addrs := freeport.Addrs(t, 2)
	trans, err := newTCPTransport(addrs[0], hclog.NewNullLogger())
	if err != nil {
		t.Fatal(err)
	}
	defer trans.Close()
	if p, err := trans.AppendEntriesPipeline("2", raft.ServerAddress(addrs[1])); !errors.Is(err, raft.ErrPipelineReplicationNotSupported) {
		if p != nil {
			p.Close()
		}
		t.Fatalf("AppendEntriesPipeline: %v, want %v", err, raft.ErrPipelineReplicationNotSupported)
	}
}
