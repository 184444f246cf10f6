package raft

import (
	"fmt"
	"path"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/log"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/sim"
	"github.com/loglab/loglab/engine/storage"
)

// fsEntries makes entries from offset on, all in epoch.
func fsEntries(from int64, n int, epoch int32) []protocol.MetadataEntry {
	out := make([]protocol.MetadataEntry, n)
	for i := range out {
		off := from + int64(i)
		out[i] = protocol.MetadataEntry{Epoch: epoch, Record: protocol.MetadataRecord{Offset: off, Type: "Topic",
			Topic: fmt.Sprintf("t%d", off), Partitions: int32(off + 1), Replicas: []int32{1, 2}}}
	}
	return out
}

func fsOpen(t *testing.T, fs storage.FS) *FileStore {
	t.Helper()
	s, err := OpenFileStore(fs, "ctl1")
	if err != nil {
		t.Fatalf("OpenFileStore: %v", err)
	}
	return s
}

func fsLoad(t *testing.T, s Store) (QuorumState, *Snapshot, []protocol.MetadataEntry) {
	t.Helper()
	st, snap, entries, err := s.Load()
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return st, snap, entries
}

func fsMust(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// fsSame compares two Loads, an empty slice equal to nil.
func fsSame(t *testing.T, what string, gotSt QuorumState, gotSnap *Snapshot, got []protocol.MetadataEntry,
	wantSt QuorumState, wantSnap *Snapshot, want []protocol.MetadataEntry) {
	t.Helper()
	if gotSt != wantSt {
		t.Errorf("%s: state %+v, want %+v", what, gotSt, wantSt)
	}
	if (gotSnap == nil) != (wantSnap == nil) || (gotSnap != nil && !reflect.DeepEqual(*gotSnap, *wantSnap)) {
		t.Errorf("%s: snapshot %+v, want %+v", what, gotSnap, wantSnap)
	}
	if len(got) != len(want) || (len(got) > 0 && !reflect.DeepEqual(got, want)) {
		t.Errorf("%s: entries\n%+v\nwant\n%+v", what, got, want)
	}
}

func fsReadAll(t *testing.T, fs storage.FS, name string) []byte {
	t.Helper()
	raw, err := storage.ReadFile(fs, name)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func fsList(t *testing.T, fs storage.FS, dir string) []string {
	t.Helper()
	names, err := fs.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func fsActiveSegment(t *testing.T, fs storage.FS, s *FileStore) string {
	t.Helper()
	var last string
	for _, name := range fsList(t, fs, s.LogDir()) {
		if _, suffix, ok := log.ParseFileName(name); ok && suffix == log.LogSuffix {
			last = name
		}
	}
	if last == "" {
		t.Fatal("no segment file")
	}
	return path.Join(s.LogDir(), last)
}

func TestFileStoreRoundTrip(t *testing.T) {
	fs := storage.NewMem()
	s := fsOpen(t, fs)
	st, snap, entries := fsLoad(t, s)
	fsSame(t, "new store", st, snap, entries, QuorumState{LeaderID: -1, VotedID: -1}, nil, nil)

	state := QuorumState{LeaderID: 1, LeaderEpoch: 3, VotedID: 1}
	fsMust(t, s.SaveState(state))
	change := protocol.MetadataEntry{Epoch: 1, Record: protocol.MetadataRecord{Offset: 0, Type: "LeaderChange", BrokerID: 1, Replicas: []int32{1, 2, 3}}}
	want := append([]protocol.MetadataEntry{change}, fsEntries(1, 3, 1)...)
	want = append(want, fsEntries(4, 2, 3)...)
	fsMust(t, s.Append(want[:1]))
	fsMust(t, s.Append(want[1:4]))
	fsMust(t, s.Append(want[4:]))
	if err := s.Append(fsEntries(7, 1, 3)); err == nil {
		t.Error("an entry at 7 after a log ending at 6 was accepted")
	}
	if err := s.Append(fsEntries(3, 1, 3)); err == nil {
		t.Error("an entry at 3 after a log ending at 6 was accepted")
	}
	bad := fsEntries(6, 2, 3)
	bad[1].Record.Offset = 9
	if err := s.Append(bad); err == nil {
		t.Error("entries at 6 and 9 were accepted")
	}
	st, snap, entries = fsLoad(t, s)
	fsSame(t, "before close", st, snap, entries, state, nil, want)
	fsMust(t, s.Close())

	// Kafka's quorum-state, version 1.
	got := string(fsReadAll(t, fs, "ctl1/quorum-state"))
	if wantJSON := `{"leaderId":1,"leaderEpoch":3,"votedId":1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}`; got != wantJSON {
		t.Errorf("quorum-state is\n%s\nwant\n%s", got, wantJSON)
	}
	// One RecordBatch v2 per entry at its offset, in its epoch, one record
	// without a key whose value is the record's JSON.
	raw := fsReadAll(t, fs, "ctl1/__cluster_metadata-0/00000000000000000000.log")
	for i := 0; len(raw) > 0; i++ {
		b, n, err := record.Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		if b.BaseOffset != int64(i) || b.PartitionLeaderEpoch != want[i].Epoch || len(b.Records) != 1 || b.Records[0].Key != nil {
			t.Errorf("batch %d: base offset %d, epoch %d, %d records", i, b.BaseOffset, b.PartitionLeaderEpoch, len(b.Records))
		}
		if i == 0 && !strings.Contains(string(b.Records[0].Value), `"Type":"LeaderChange"`) {
			t.Errorf("batch 0 holds %s", b.Records[0].Value)
		}
		raw = raw[n:]
	}

	s = fsOpen(t, fs)
	st, snap, entries = fsLoad(t, s)
	fsSame(t, "reopened", st, snap, entries, state, nil, want)
	fsMust(t, s.Append(fsEntries(6, 1, 3)))
	fsMust(t, s.Close())
}

func TestFileStoreTruncate(t *testing.T) {
	fs := storage.NewMem()
	s := fsOpen(t, fs)
	fsMust(t, s.Append(fsEntries(0, 10, 1)))
	fsMust(t, s.TruncateTo(6))
	fsMust(t, s.TruncateTo(20)) // past the end: nothing
	_, _, entries := fsLoad(t, s)
	fsSame(t, "truncated", QuorumState{}, nil, entries, QuorumState{}, nil, fsEntries(0, 6, 1))
	fsMust(t, s.Append(fsEntries(6, 2, 2)))
	fsMust(t, s.Close())

	s = fsOpen(t, fs)
	want := append(fsEntries(0, 6, 1), fsEntries(6, 2, 2)...)
	st, snap, entries := fsLoad(t, s)
	fsSame(t, "reopened", st, snap, entries, QuorumState{LeaderID: -1, VotedID: -1}, nil, want)
	if ep := s.log.Epochs().Entries(); len(ep) != 2 || ep[1] != (log.EpochEntry{Epoch: 2, StartOffset: 6}) {
		t.Errorf("leader-epoch-checkpoint %+v", ep)
	}
	fsMust(t, s.TruncateTo(0))
	_, _, entries = fsLoad(t, s)
	fsSame(t, "emptied", QuorumState{}, nil, entries, QuorumState{}, nil, nil)
	fsMust(t, s.Append(fsEntries(0, 1, 3)))
	fsMust(t, s.Close())
}

// fsBigEntries are entries of about 200 KB each, five to a 1 MiB segment.
func fsBigEntries(from int64, n int, epoch int32) []protocol.MetadataEntry {
	out := fsEntries(from, n, epoch)
	for i := range out {
		out[i].Record.Value = strings.Repeat("x", 200<<10)
	}
	return out
}

func TestFileStoreSnapshot(t *testing.T) {
	fs := storage.NewMem()
	s := fsOpen(t, fs)
	all := append(fsBigEntries(0, 10, 1), fsBigEntries(10, 10, 2)...)
	for i := range all {
		fsMust(t, s.Append(all[i:i+1]))
	}
	if n := len(s.Segments()); n < 4 {
		t.Fatalf("%d segments for 4 MB of records in 1 MiB segments", n)
	}
	first := Snapshot{ID: protocol.SnapshotID{EndOffset: 5, Epoch: 1}, Records: []protocol.MetadataRecord{{Type: "Topic", Topic: "a", Partitions: 1}}}
	fsMust(t, s.SaveSnapshot(first))
	snap := Snapshot{ID: protocol.SnapshotID{EndOffset: 12, Epoch: 2}, Records: []protocol.MetadataRecord{
		{Type: "Topic", Topic: "a", Partitions: 1}, {Type: "RegisterBroker", BrokerID: 1, BrokerEpoch: 7}, {Type: "Topic", Topic: "b", Partitions: 3}}}
	fsMust(t, s.SaveSnapshot(snap))

	check := func(what string) {
		t.Helper()
		_, gotSnap, entries := fsLoad(t, s)
		fsSame(t, what, QuorumState{}, gotSnap, entries, QuorumState{}, &snap, all[12:])
		segs := s.Segments()
		if segs[0].BaseOffset > 12 || (len(segs) > 1 && segs[1].BaseOffset <= 12) {
			t.Errorf("%s: segments %+v: want the first to be the one holding offset 12", what, segs)
		}
		var checkpoints []string
		for _, name := range fsList(t, fs, s.LogDir()) {
			if strings.Contains(name, ".checkpoint") {
				checkpoints = append(checkpoints, name)
			}
		}
		if want := []string{"00000000000000000012-0000000002.checkpoint"}; !reflect.DeepEqual(checkpoints, want) {
			t.Errorf("%s: snapshot files %v, want %v", what, checkpoints, want)
		}
	}
	check("after the snapshot")
	fsMust(t, s.Close())
	s = fsOpen(t, fs)
	check("reopened")

	// A snapshot at the log end: the log restarts there.
	snap = Snapshot{ID: protocol.SnapshotID{EndOffset: 20, Epoch: 2}}
	fsMust(t, s.SaveSnapshot(snap))
	_, gotSnap, entries := fsLoad(t, s)
	fsSame(t, "snapshot at the end", QuorumState{}, gotSnap, entries, QuorumState{}, &snap, nil)
	if segs := s.Segments(); len(segs) != 1 || segs[0].BaseOffset != 20 {
		t.Errorf("segments %+v: want one starting at 20", segs)
	}
	fsMust(t, s.Append(fsEntries(20, 2, 3)))
	fsMust(t, s.Close())
	s = fsOpen(t, fs)
	_, gotSnap, entries = fsLoad(t, s)
	fsSame(t, "reopened after the end", QuorumState{}, gotSnap, entries, QuorumState{}, &snap, fsEntries(20, 2, 3))

	// A follower installing its leader's snapshot past its log end.
	fsMust(t, s.TruncateTo(20))
	snap = Snapshot{ID: protocol.SnapshotID{EndOffset: 30, Epoch: 4}, Records: []protocol.MetadataRecord{{Type: "Topic", Topic: "c", Partitions: 2}}}
	fsMust(t, s.SaveSnapshot(snap))
	if err := s.Append(fsEntries(29, 1, 4)); err == nil {
		t.Error("an entry below the snapshot was accepted")
	}
	fsMust(t, s.Append(fsEntries(30, 1, 4)))
	fsMust(t, s.Close())
	s = fsOpen(t, fs)
	_, gotSnap, entries = fsLoad(t, s)
	fsSame(t, "installed", QuorumState{}, gotSnap, entries, QuorumState{}, &snap, fsEntries(30, 1, 4))
	fsMust(t, s.Close())
}

// A crash between writing a snapshot and truncating the log (a follower
// that fetched it): Open cuts the log to start at the snapshot.
func TestFileStoreSnapshotPastLogEndOnOpen(t *testing.T) {
	fs := storage.NewMem()
	s := fsOpen(t, fs)
	fsMust(t, s.Append(fsEntries(0, 5, 1)))
	snap := Snapshot{ID: protocol.SnapshotID{EndOffset: 9, Epoch: 2}}
	body, err := fileStoreEncodeSnapshot(snap)
	fsMust(t, err)
	fsMust(t, fileStoreWriteAtomically(fs, path.Join(s.LogDir(), fileStoreSnapshotName(snap.ID)), fileStorePartSuffix, body))
	fsMust(t, s.Close())
	s = fsOpen(t, fs)
	_, gotSnap, entries := fsLoad(t, s)
	fsSame(t, "reopened", QuorumState{}, gotSnap, entries, QuorumState{}, &snap, nil)
	fsMust(t, s.Append(fsEntries(9, 1, 2)))
	fsMust(t, s.Close())
}

func TestFileStoreTornTail(t *testing.T) {
	fs := storage.NewMem()
	s := fsOpen(t, fs)
	fsMust(t, s.Append(fsEntries(0, 5, 1)))
	fsMust(t, s.Close())
	// Half of the next batch reached the disk.
	next, err := fileStoreEncodeEntry(nil, fsEntries(5, 1, 1)[0])
	fsMust(t, err)
	f, err := fs.Open(fsActiveSegment(t, fs, s))
	fsMust(t, err)
	_, err = f.Write(next[:len(next)/2])
	fsMust(t, err)
	fsMust(t, f.Close())
	// And a write of quorum-state and of a snapshot were cut short.
	for _, name := range []string{"ctl1/quorum-state.tmp", "ctl1/__cluster_metadata-0/00000000000000000003-0000000001.checkpoint.part"} {
		f, err := fs.Create(name)
		fsMust(t, err)
		_, err = f.Write([]byte(`{"leaderId":`))
		fsMust(t, err)
		fsMust(t, f.Close())
	}

	s = fsOpen(t, fs)
	st, snap, entries := fsLoad(t, s)
	fsSame(t, "reopened", st, snap, entries, QuorumState{LeaderID: -1, VotedID: -1}, nil, fsEntries(0, 5, 1))
	fsMust(t, s.Append(fsEntries(5, 1, 1)))
	_, _, entries = fsLoad(t, s)
	fsSame(t, "appended", QuorumState{}, nil, entries, QuorumState{}, nil, fsEntries(0, 6, 1))
	for _, dir := range []string{"ctl1", s.LogDir()} {
		for _, name := range fsList(t, fs, dir) {
			if strings.HasSuffix(name, ".part") || name == "quorum-state.tmp" {
				t.Errorf("%s/%s left behind", dir, name)
			}
		}
	}
	fsMust(t, s.Close())
}

func TestFileStoreQuorumStateVersions(t *testing.T) {
	write := func(fs storage.FS, body string) {
		fsMust(t, fs.MkdirAll("ctl1"))
		f, err := fs.Create("ctl1/quorum-state")
		fsMust(t, err)
		_, err = f.Write([]byte(body))
		fsMust(t, err)
		fsMust(t, f.Close())
	}
	// Version 0, as Kafka 3.x wrote it.
	fs := storage.NewMem()
	write(fs, `{"clusterId":"","leaderId":2,"leaderEpoch":5,"votedId":-1,"appliedOffset":0,"currentVoters":[{"voterId":1},{"voterId":2}],"data_version":0}`+"\n")
	s := fsOpen(t, fs)
	st, _, _ := fsLoad(t, s)
	if want := (QuorumState{LeaderID: 2, LeaderEpoch: 5, VotedID: -1}); st != want {
		t.Errorf("version 0: %+v, want %+v", st, want)
	}
	fsMust(t, s.Close())

	for _, c := range []struct{ body, want string }{
		{`{"leaderId":1,"leaderEpoch":3,"votedId":1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":2}`, "data_version 2"},
		{`{"leaderId":1,"leaderEpoch":3,"votedId":1}`, "no data_version"},
		{``, "empty"},
		{`{"leaderId":1,`, "not JSON"},
	} {
		fs := storage.NewMem()
		write(fs, c.body)
		s := fsOpen(t, fs)
		_, _, _, err := s.Load()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: Load said %v, want an error about %s", c.body, err, c.want)
		}
		// A node does not start on it.
		n := NewNode(DefaultConfig(1, "c1", []int32{1}, fsVoterNode), sim.NewNetwork(sim.NewScheduler(&sim.Clock{})),
			sim.NewScheduler(&sim.Clock{}), sim.NewRand(1), s, &fsListener{}, nil)
		if err := n.Start(); err == nil {
			t.Errorf("%q: a node started", c.body)
		}
		fsMust(t, s.Close())
	}
}

// fsOp is one call on a store, applied to the FileStore and to a MemStore
// (the model of what must survive).
type fsOp struct {
	name string
	do   func(Store) error
}

func fsScript() []fsOp {
	state := func(leader, epoch, voted int32) fsOp {
		return fsOp{fmt.Sprintf("SaveState(%d,%d,%d)", leader, epoch, voted), func(s Store) error {
			return s.SaveState(QuorumState{LeaderID: leader, LeaderEpoch: epoch, VotedID: voted})
		}}
	}
	appendOp := func(from int64, n int, epoch int32) fsOp {
		return fsOp{fmt.Sprintf("Append(%d+%d@%d)", from, n, epoch), func(s Store) error { return s.Append(fsEntries(from, n, epoch)) }}
	}
	truncate := func(to int64) fsOp {
		return fsOp{fmt.Sprintf("TruncateTo(%d)", to), func(s Store) error { return s.TruncateTo(to) }}
	}
	snapshot := func(end int64, epoch int32) fsOp {
		return fsOp{fmt.Sprintf("SaveSnapshot(%d@%d)", end, epoch), func(s Store) error {
			return s.SaveSnapshot(Snapshot{ID: protocol.SnapshotID{EndOffset: end, Epoch: epoch},
				Records: []protocol.MetadataRecord{{Type: "Topic", Topic: fmt.Sprint("s", end), Partitions: 1}}})
		}}
	}
	return []fsOp{
		state(-1, 1, 1), appendOp(0, 1, 1), state(1, 1, 1), appendOp(1, 5, 1),
		truncate(4), state(-1, 2, 2), state(2, 2, 2), appendOp(4, 3, 2), appendOp(7, 3, 2),
		snapshot(7, 2), appendOp(10, 3, 2), snapshot(13, 2), state(-1, 3, -1), appendOp(13, 2, 3),
		truncate(13), snapshot(20, 4), state(4, 4, -1), appendOp(20, 3, 4),
	}
}

// A power cut after any call loses nothing the call returned, whatever
// was being written when the power went: the unsynced tail of the log, a
// quorum-state.tmp, a .checkpoint.part. Whether the cut-off bytes of the
// log reached the disk or not, the reopened store holds what the calls
// returned and takes the next entry.
func TestFileStorePowerCut(t *testing.T) {
	script := fsScript()
	for k := 0; k <= len(script); k++ {
		for _, tornOnDisk := range []bool{false, true} {
			name := "start"
			if k > 0 {
				name = script[k-1].name
			}
			t.Run(fmt.Sprintf("%02d-%s-torn=%v", k, name, tornOnDisk), func(t *testing.T) {
				fs := storage.NewCrashableMem()
				s := fsOpen(t, fs)
				model := NewMemStore()
				for _, op := range script[:k] {
					fsMust(t, op.do(s))
					fsMust(t, op.do(model))
				}
				// What the power cut interrupted.
				wantSt, wantSnap, want := fsLoad(t, model)
				next := int64(0)
				if wantSnap != nil {
					next = wantSnap.ID.EndOffset
				}
				if len(want) > 0 {
					next = want[len(want)-1].Record.Offset + 1
				}
				torn, err := fileStoreEncodeEntry(nil, fsEntries(next, 1, 9)[0])
				fsMust(t, err)
				f, err := fs.Open(fsActiveSegment(t, fs, s))
				fsMust(t, err)
				_, err = f.Write(torn[:len(torn)-3])
				fsMust(t, err)
				if tornOnDisk {
					fsMust(t, f.Sync())
				}
				for _, name := range []string{"ctl1/quorum-state.tmp", path.Join(s.LogDir(), "00000000000000000099-0000000009.checkpoint.part")} {
					f, err := fs.Create(name)
					fsMust(t, err)
					_, err = f.Write([]byte("{"))
					fsMust(t, err)
					if tornOnDisk {
						fsMust(t, f.Sync())
					}
				}

				after := fs.Crash()
				s = fsOpen(t, after)
				st, snap, entries := fsLoad(t, s)
				fsSame(t, "after the power cut", st, snap, entries, wantSt, wantSnap, want)
				fsMust(t, s.Append(fsEntries(next, 1, 9)))
				fsMust(t, model.Append(fsEntries(next, 1, 9)))
				st, snap, entries = fsLoad(t, s)
				wantSt, wantSnap, want = fsLoad(t, model)
				fsSame(t, "appended after the power cut", st, snap, entries, wantSt, wantSnap, want)
				fsMust(t, s.Close())
			})
		}
	}
}

func fsVoterNode(id int32) sim.NodeID { return sim.NodeID(fmt.Sprint("c", id)) }

// fsListener is the state machine: the records committed since the last
// snapshot it loaded.
type fsListener struct {
	snap      *Snapshot
	committed []protocol.MetadataEntry
	leader    int32
	epoch     int32
}

func (l *fsListener) Commit(entries []protocol.MetadataEntry) {
	l.committed = append(l.committed, entries...)
}
func (l *fsListener) LoadSnapshot(snap Snapshot) { l.snap, l.committed = &snap, nil }
func (l *fsListener) LeaderChange(leader, epoch int32) {
	l.leader, l.epoch = leader, epoch
}
func (l *fsListener) SnapshotRecords() []protocol.MetadataRecord {
	var out []protocol.MetadataRecord
	if l.snap != nil {
		out = append(out, l.snap.Records...)
	}
	for _, e := range l.committed {
		if e.Record.Type != "LeaderChange" {
			out = append(out, e.Record)
		}
	}
	return out
}

// fsNode is a one-voter quorum on a FileStore in fs.
type fsNode struct {
	node  *Node
	sched *sim.Scheduler
	lis   *fsListener
}

func fsStartNode(t *testing.T, fs storage.FS) *fsNode {
	t.Helper()
	sched := sim.NewScheduler(&sim.Clock{})
	net := sim.NewNetwork(sched)
	store := fsOpen(t, fs)
	m := &fsNode{sched: sched, lis: &fsListener{}}
	m.node = NewNode(DefaultConfig(1, "c1", []int32{1}, fsVoterNode), net, sched, sim.NewRand(7), store, m.lis, nil)
	net.Attach("c1", func(env *sim.Envelope) { m.node.Handle(env) })
	fsMust(t, m.node.Start())
	return m
}

func (m *fsNode) runUntilReady(t *testing.T) {
	t.Helper()
	for limit := m.sched.Clock.Elapsed() + 30*time.Second; !m.node.Ready(); {
		if _, ok := m.sched.Step(); !ok || m.sched.Clock.Elapsed() > limit {
			t.Fatalf("no leader: role %v epoch %d", m.node.Role(), m.node.Epoch())
		}
	}
}

// A controller on a FileStore elects itself, writes records (enough for a
// snapshot), is shut down and comes back from its files with the same
// log, snapshot and epoch; having led, it resigns and wins the next
// election in a higher epoch.
func TestFileStoreNodeRestart(t *testing.T) {
	fs := storage.NewMem()
	m := fsStartNode(t, fs)
	m.runUntilReady(t)
	epoch := m.node.Epoch()
	if epoch < 1 {
		t.Fatalf("leader in epoch %d", epoch)
	}
	for i := 0; i < 5; i++ {
		recs := make([]protocol.MetadataRecord, 10)
		for j := range recs {
			recs[j] = protocol.MetadataRecord{Type: "Topic", Topic: fmt.Sprintf("t%d-%d", i, j), Partitions: 1}
		}
		if _, err := m.node.Append(recs); err != nil {
			t.Fatal(err)
		}
		m.sched.RunUntil(m.sched.Clock.Elapsed()+100*time.Millisecond, 10000)
	}
	log1 := m.node.Log()
	if log1.LatestSnapshot() == nil {
		t.Fatalf("no snapshot after %d records", log1.EndOffset())
	}
	wantSnap := *log1.LatestSnapshot()
	wantStart, wantEnd := log1.StartOffset(), log1.EndOffset()
	wantEntries := log1.Entries(wantStart, int(wantEnd-wantStart))
	if hw := m.node.HighWatermark(); hw != wantEnd {
		t.Fatalf("high watermark %d, log end %d", hw, wantEnd)
	}
	m.node.Crash()
	fsMust(t, m.node.Close())

	m = fsStartNode(t, fs)
	log2 := m.node.Log()
	if m.node.Role() != Resigned || m.node.Epoch() != epoch {
		t.Errorf("restarted as %v in epoch %d, want Resigned in %d", m.node.Role(), m.node.Epoch(), epoch)
	}
	if log2.StartOffset() != wantStart || log2.EndOffset() != wantEnd {
		t.Errorf("restarted with log [%d, %d), want [%d, %d)", log2.StartOffset(), log2.EndOffset(), wantStart, wantEnd)
	}
	if got := log2.LatestSnapshot(); got == nil || !reflect.DeepEqual(*got, wantSnap) {
		t.Errorf("restarted with snapshot %+v, want %+v", got, wantSnap)
	}
	if got := log2.Entries(wantStart, int(wantEnd-wantStart)); !reflect.DeepEqual(got, wantEntries) {
		t.Errorf("restarted with entries\n%+v\nwant\n%+v", got, wantEntries)
	}
	if m.lis.snap == nil || !reflect.DeepEqual(*m.lis.snap, wantSnap) {
		t.Errorf("the listener was handed snapshot %+v", m.lis.snap)
	}

	m.runUntilReady(t)
	if m.node.Epoch() <= epoch {
		t.Errorf("leads again in epoch %d, not above %d", m.node.Epoch(), epoch)
	}
	log3 := m.node.Log()
	if log3.EndOffset() <= wantEnd || !reflect.DeepEqual(log3.Entries(wantStart, int(wantEnd-wantStart)), wantEntries) {
		t.Errorf("the new epoch's log [%d, %d) does not extend the old one", log3.StartOffset(), log3.EndOffset())
	}
	if e, _ := log3.Entry(wantEnd); e.Record.Type != "LeaderChange" || e.Epoch != m.node.Epoch() {
		t.Errorf("offset %d holds %+v, want the new epoch's LeaderChange", wantEnd, e)
	}
	if m.lis.leader != 1 || m.lis.epoch != m.node.Epoch() {
		t.Errorf("the listener heard leader %d in epoch %d", m.lis.leader, m.lis.epoch)
	}
	newEpoch, end := m.node.Epoch(), log3.EndOffset()
	m.node.Crash()
	fsMust(t, m.node.Close())

	// The files say so too.
	s := fsOpen(t, fs)
	st, snap, entries := fsLoad(t, s)
	if st != (QuorumState{LeaderID: 1, LeaderEpoch: newEpoch, VotedID: 1}) {
		t.Errorf("quorum-state %+v", st)
	}
	if snap == nil || len(entries) == 0 || entries[len(entries)-1].Record.Offset != end-1 {
		t.Errorf("stored snapshot %v and %d entries, want them to reach %d", snap, len(entries), end)
	}
	fsMust(t, s.Close())
}

// A log that starts past offset 0 with no snapshot below it is refused,
// naming the directory: the records below are nowhere.
func TestFileStoreRefusesALogWithoutItsSnapshot(t *testing.T) {
	fs := storage.NewMem()
	st, err := OpenFileStore(fs, "ctl")
	if err != nil {
		t.Fatal(err)
	}
	var entries []protocol.MetadataEntry
	for i := range 4 {
		entries = append(entries, protocol.MetadataEntry{Epoch: 1, Record: protocol.MetadataRecord{Offset: int64(i), Type: "Topic", Topic: fmt.Sprint("t", i)}})
	}
	if err := st.Append(entries); err != nil {
		t.Fatal(err)
	}
	// A snapshot past the log end (as a follower installs one): the log
	// starts again at its end, 10.
	if err := st.SaveSnapshot(Snapshot{ID: protocol.SnapshotID{EndOffset: 10, Epoch: 2}}); err != nil {
		t.Fatal(err)
	}
	if err := st.Append([]protocol.MetadataEntry{{Epoch: 2, Record: protocol.MetadataRecord{Offset: 10, Type: "Topic", Topic: "t10"}}}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	names, err := fs.ReadDir("ctl/__cluster_metadata-0")
	if err != nil {
		t.Fatal(err)
	}
	removed := 0
	for _, n := range names {
		if strings.HasSuffix(n, ".checkpoint") {
			if err := fs.Remove("ctl/__cluster_metadata-0/" + n); err != nil {
				t.Fatal(err)
			}
			removed++
		}
	}
	if removed != 1 {
		t.Fatalf("%d snapshots removed, want 1 (files %v)", removed, names)
	}
	st, err = OpenFileStore(fs, "ctl")
	if err == nil {
		_, _, _, err = st.Load()
		st.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "no .checkpoint snapshot") {
		t.Fatalf("a log starting at 10 with no snapshot: %v", err)
	}
}
