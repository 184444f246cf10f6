package quorum

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/storage"
)

func raftLog(index, term uint64) *raft.Log {
	l := &raft.Log{Index: index, Term: term, Type: raft.LogCommand, Data: []byte(fmt.Sprintf(`{"entry":%d}`, index)),
		AppendedAt: time.UnixMilli(1_700_000_000_000 + int64(index))}
	switch index % 4 {
	case 1:
		l.Type, l.Data = raft.LogNoop, nil
	case 2:
		l.Extensions = []byte{0xff, 0, 1}
	case 3:
		l.Type = raft.LogConfiguration
	}
	return l
}

func storeRange(t *testing.T, s *segmentStore, from, to, term uint64) {
	t.Helper()
	var logs []*raft.Log
	for i := from; i <= to; i++ {
		logs = append(logs, raftLog(i, term))
	}
	if err := s.StoreLogs(logs); err != nil {
		t.Fatal(err)
	}
}

func checkRange(t *testing.T, s *segmentStore, first, last uint64) {
	t.Helper()
	f, _ := s.FirstIndex()
	l, _ := s.LastIndex()
	if f != first || l != last {
		t.Fatalf("store holds %d..%d, want %d..%d", f, l, first, last)
	}
	for i := first; i <= last && last > 0; i++ {
		var got raft.Log
		if err := s.GetLog(i, &got); err != nil {
			t.Fatalf("GetLog(%d): %v", i, err)
		}
		want := raftLog(i, got.Term)
		if !reflect.DeepEqual(&got, want) || got.Term == 0 {
			t.Fatalf("GetLog(%d) = %+v, want %+v", i, got, want)
		}
	}
	for _, i := range []uint64{first - 1, last + 1} {
		var got raft.Log
		if err := s.GetLog(i, &got); !errors.Is(err, raft.ErrLogNotFound) {
			t.Fatalf("GetLog(%d) outside %d..%d: %v", i, first, last, err)
		}
	}
}

func TestSegmentStore(t *testing.T) {
	fs := storage.NewMem()
	s, err := openSegmentStore(fs, "controller-1", 400)
	if err != nil {
		t.Fatal(err)
	}
	checkRange(t, s, 0, 0)
	storeRange(t, s, 1, 30, 1)
	checkRange(t, s, 1, 30)
	if err := s.StoreLog(raftLog(32, 1)); err == nil {
		t.Fatal("a gap was accepted")
	}

	// Compaction after a snapshot: the log start moves, whole segments go.
	if err := s.DeleteRange(1, 20); err != nil {
		t.Fatal(err)
	}
	checkRange(t, s, 21, 30)
	if segs := s.Segments(); segs[0].BaseOffset == 0 || segs[0].BaseOffset > 20 {
		t.Fatalf("segments after compaction: %+v", segs)
	}

	// A conflicting suffix from a new leader.
	if err := s.DeleteRange(26, 30); err != nil {
		t.Fatal(err)
	}
	checkRange(t, s, 21, 25)
	storeRange(t, s, 26, 28, 2)
	checkRange(t, s, 21, 28)

	// Everything survives a reopen, the log start included.
	s.Close()
	if s, err = openSegmentStore(fs, "controller-1", 400); err != nil {
		t.Fatal(err)
	}
	checkRange(t, s, 21, 28)
	var l raft.Log
	if s.GetLog(27, &l); l.Term != 2 {
		t.Fatalf("entry 27 has term %d after reopen", l.Term)
	}

	// After installing a snapshot raft removes everything and continues
	// after the snapshot.
	if err := s.DeleteRange(21, 28); err != nil {
		t.Fatal(err)
	}
	checkRange(t, s, 0, 0)
	storeRange(t, s, 100, 103, 3)
	checkRange(t, s, 100, 103)
	s.Close()
	if s, err = openSegmentStore(fs, "controller-1", 400); err != nil {
		t.Fatal(err)
	}
	checkRange(t, s, 100, 103)

	// The files are Kafka's.
	names, _ := fs.ReadDir("controller-1/__cluster_metadata-0")
	if !strings.Contains(strings.Join(names, " "), ".log") || !strings.Contains(strings.Join(names, " "), "leader-epoch-checkpoint") {
		t.Fatalf("metadata log files: %v", names)
	}
	f, err := fs.Open("controller-1/log-start-offset-checkpoint")
	if err != nil {
		t.Fatal(err)
	}
	raw := make([]byte, f.Size())
	storage.ReadFull(f, raw, 0)
	if string(raw) != "0\n1\n__cluster_metadata 0 0\n" {
		t.Fatalf("log-start-offset-checkpoint: %q", raw)
	}
	s.Close()
}

func TestStateStore(t *testing.T) {
	fs := storage.NewMem()
	s, err := openStateStore(fs, "controller-2")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get([]byte("LastVoteCand")); err == nil || err.Error() != "not found" {
		t.Fatalf("missing key: %v", err)
	}
	if v, err := s.GetUint64([]byte("CurrentTerm")); v != 0 || err != nil {
		t.Fatalf("missing number: %d, %v", v, err)
	}
	s.SetUint64([]byte("CurrentTerm"), 7)
	s.Set([]byte("LastVoteCand"), []byte("controller-2"))
	s.Set([]byte("raw"), []byte{0xff, 0xfe})
	s2, err := openStateStore(fs, "controller-2")
	if err != nil {
		t.Fatal(err)
	}
	v, _ := s2.GetUint64([]byte("CurrentTerm"))
	cand, _ := s2.Get([]byte("LastVoteCand"))
	raw, _ := s2.Get([]byte("raw"))
	if v != 7 || string(cand) != "controller-2" || !bytes.Equal(raw, []byte{0xff, 0xfe}) {
		t.Fatalf("after reopen: %d %q %v", v, cand, raw)
	}
}

func TestEntryRoundTrip(t *testing.T) {
	recs := records(0, 12)
	recs[0].Offset = 99 // offsets are not part of the entry
	data, err := encodeEntry("x-1", recs)
	if err != nil {
		t.Fatal(err)
	}
	e, err := decodeEntry(data)
	if err != nil {
		t.Fatal(err)
	}
	recs[0].Offset = 0
	if e.ID != "x-1" || !reflect.DeepEqual(e.Records, recs) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", e.Records, recs)
	}
	if _, err := decodeEntry([]byte(`{"v":2}`)); err == nil {
		t.Fatal("an unknown version decoded")
	}
}

func TestFSM(t *testing.T) {
	f := newFSM()
	apply := func(index uint64, id string, recs []protocol.MetadataRecord) applied {
		data, _ := encodeEntry(id, recs)
		return f.Apply(&raft.Log{Index: index, Type: raft.LogCommand, Data: data}).(applied)
	}
	a := apply(1, "p-1", records(0, 3))
	b := apply(2, "p-2", records(3, 2))
	dup := apply(3, "p-1", records(0, 3))
	if a.records[2].Offset != 2 || b.records[0].Offset != 3 || !reflect.DeepEqual(dup.records, a.records) || f.end() != 5 {
		t.Fatalf("offsets: %v %v %v end %d", a.records, b.records, dup.records, f.end())
	}
	if f.Apply(&raft.Log{Index: 4, Type: raft.LogNoop}) != nil {
		t.Fatal("a no-op reached the state machine")
	}

	snap, err := f.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	sink := &memSink{}
	if err := snap.Persist(sink); err != nil {
		t.Fatal(err)
	}
	g := newFSM()
	if err := g.Restore(sink); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g.imageClone(), f.imageClone()) || g.end() != 5 {
		t.Fatalf("restored image differs")
	}
	recs, start, err := g.read(0)
	if !errors.Is(err, ErrCompacted) || start != 5 || len(recs) != 0 {
		t.Fatalf("read(0) after restore: %v %d %v", recs, start, err)
	}
	if first, ok := g.proposal("p-2"); !ok || first != 3 {
		t.Fatal("the restored state machine forgot its proposals")
	}
	data, _ := encodeEntry("p-3", records(5, 1))
	g.Apply(&raft.Log{Index: 5, Type: raft.LogCommand, Data: data})
	if recs, start, err := f.read(-1); err != nil || start != 0 || len(recs) != 5 {
		t.Fatalf("read(-1): %d records from %d, %v", len(recs), start, err)
	}
	if recs, start, err := g.read(5); err != nil || start != 5 || len(recs) != 1 || recs[0].Offset != 5 {
		t.Fatalf("read(5): %v %d %v", recs, start, err)
	}
}

type memSink struct {
	bytes.Buffer
	closed bool
}

func (s *memSink) ID() string                 { return "mem" }
func (s *memSink) Cancel() error              { return nil }
func (s *memSink) Close() error               { s.closed = true; return nil }
func (s *memSink) Read(p []byte) (int, error) { return s.Buffer.Read(p) }
