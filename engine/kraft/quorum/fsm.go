package quorum

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/hashicorp/raft"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
)

// entryVersion is the version of the entry encoding below.
const entryVersion = 1

// entry is the Data of one raft LogCommand entry: the records of one Append,
// committed together. It is JSON:
//
//		{"v":1,"id":"m3x9q2-7","records":[{"Offset":0,"Type":"RegisterBroker","BrokerID":1,
//		  "BrokerEpoch":0,"Topic":"","Partitions":0,"Partition":0,"Replicas":null,"ISR":null,
//		  "Leader":0,"LeaderEpoch":0,"PartitionEpoch":0,"Unclean":false,"Name":"","Value":""}]}
//
//	  - v is the format version, 1.
//	  - id names the proposal (the quorum's random instance nonce, a dash, a
//	    sequence number). An Append whose leader died before it answered asks
//	    the next leader whether that id was applied before proposing again, and
//	    the state machine applies an id at most once, so a record is never
//	    committed twice (the idempotent producer's idea, for metadata).
//	  - records are protocol.MetadataRecord in encoding/json's default form:
//	    Go field names, every field present, nil slices as null, so decoding
//	    gives back exactly the value appended. Offset is written as 0: a
//	    record's offset is assigned when its entry is applied, as the number
//	    of metadata records applied before it.
//
// Offsets versus raft indexes: a metadata offset counts metadata records
// only. Raft indexes also count raft's own entries (configuration, no-op,
// barrier), and one entry holds all the records of one Append, so the two
// differ. Kafka's __cluster_metadata gives control records offsets too;
// loglab keeps the metadata offsets dense so that a script's transcript
// does not depend on how many elections happened on the way.
type entry struct {
	V       int                       `json:"v"`
	ID      string                    `json:"id"`
	Records []protocol.MetadataRecord `json:"records"`
}

func encodeEntry(id string, records []protocol.MetadataRecord) ([]byte, error) {
	recs := slices.Clone(records)
	for i := range recs {
		recs[i].Offset = 0
	}
	return json.Marshal(entry{V: entryVersion, ID: id, Records: recs})
}

func decodeEntry(data []byte) (entry, error) {
	var e entry
	if err := json.Unmarshal(data, &e); err != nil {
		return e, fmt.Errorf("metadata entry: %w", err)
	}
	if e.V != entryVersion {
		return e, fmt.Errorf("metadata entry: unknown version %d", e.V)
	}
	return e, nil
}

// keepProposals is how many recent proposal ids the state machine remembers
// (and snapshots) to answer "was this applied?" and to apply each once.
const keepProposals = 1024

// applied is what the state machine returns for a LogCommand entry; the
// leader hands it to the Append that proposed it.
type applied struct {
	records []protocol.MetadataRecord // with their offsets
	err     error
}

// fsm is one controller's state machine: it replays committed metadata
// records into that controller's own image, as a KRaft standby controller
// (or a broker) replays __cluster_metadata.
//
// It keeps the records it applied since its process started, or since it
// last restored a snapshot: start is the offset of the first one it holds.
// Records below start exist only folded into the snapshot's image; reads
// from below start get the records from start on and ErrCompacted. The
// state machine does not drop records when it takes a snapshot itself, so
// a controller that never restarted can always show the whole log.
type fsm struct {
	mu        sync.Mutex
	image     *kraft.Image
	records   []protocol.MetadataRecord
	start     int64 // offset of records[0]
	next      int64 // offset the next record gets
	proposals map[string]int64
	order     []string // proposal ids, oldest first, at most keepProposals
	restores  int      // snapshots restored since the process started
	restored  int64    // the next offset of the last snapshot restored, -1 for none
}

func newFSM() *fsm {
	return &fsm{image: kraft.NewImage(), proposals: map[string]int64{}, restored: -1}
}

var _ raft.FSM = (*fsm)(nil)

// Apply applies one committed entry. Raft's own entries never reach it.
func (f *fsm) Apply(l *raft.Log) any {
	if l.Type != raft.LogCommand {
		return nil
	}
	e, err := decodeEntry(l.Data)
	if err != nil {
		return applied{err: err}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if first, ok := f.proposals[e.ID]; ok && e.ID != "" {
		// Already applied: return what it got then, apply nothing.
		out := slices.Clone(e.Records)
		for i := range out {
			out[i].Offset = first + int64(i)
		}
		return applied{records: out}
	}
	out := make([]protocol.MetadataRecord, len(e.Records))
	first := f.next
	for i, r := range e.Records {
		r.Offset = f.next
		f.next++
		f.image.Apply(r)
		f.records = append(f.records, r)
		out[i] = r
	}
	if e.ID != "" {
		f.remember(e.ID, first)
	}
	return applied{records: out}
}

func (f *fsm) remember(id string, first int64) {
	f.proposals[id] = first
	f.order = append(f.order, id)
	if len(f.order) > keepProposals {
		delete(f.proposals, f.order[0])
		f.order = slices.Delete(f.order, 0, 1)
	}
}

// proposal reports the offset of the first record of an applied proposal.
func (f *fsm) proposal(id string) (int64, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	first, ok := f.proposals[id]
	return first, ok
}

// ErrCompacted says that records below the offset asked for were folded
// into a snapshot: only the image remembers them.
var ErrCompacted = errors.New("OFFSET_OUT_OF_RANGE: records below this offset were compacted into a snapshot")

// read returns the records from offset from on and the first offset held.
func (f *fsm) read(from int64) ([]protocol.MetadataRecord, int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var err error
	from = max(from, 0)
	if from < f.start {
		from, err = f.start, ErrCompacted
	}
	if from >= f.next {
		return nil, f.start, err
	}
	return slices.Clone(f.records[from-f.start:]), f.start, err
}

func (f *fsm) end() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.next
}

func (f *fsm) imageClone() *kraft.Image {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.image.Clone()
}

type fsmStats struct {
	start, next, restored int64
	restores              int
}

func (f *fsm) stats() fsmStats {
	f.mu.Lock()
	defer f.mu.Unlock()
	return fsmStats{start: f.start, next: f.next, restored: f.restored, restores: f.restores}
}

// snapshotState is a snapshot's content (state.bin in raft's snapshot
// store), JSON:
//
//	{"v":1,"nextOffset":42,"image":{"Offset":41,"Brokers":[...],"Topics":[...]},
//	 "proposals":[{"id":"m3x9q2-7","offset":40}, ...]}
//
// nextOffset is the offset the next record will get (the image's Offset
// plus one); image is kraft.Image in encoding/json's default form; proposals
// are the recent proposal ids with their first offsets. Kafka's snapshots
// hold the records that rebuild the image instead; the image itself is
// simpler to show and to check.
type snapshotState struct {
	V          int              `json:"v"`
	NextOffset int64            `json:"nextOffset"`
	Image      *kraft.Image     `json:"image"`
	Proposals  []proposalOffset `json:"proposals"`
}

type proposalOffset struct {
	ID     string `json:"id"`
	Offset int64  `json:"offset"`
}

// Snapshot captures the state now; raft persists it on another goroutine.
func (f *fsm) Snapshot() (raft.FSMSnapshot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := snapshotState{V: entryVersion, NextOffset: f.next, Image: f.image}
	for _, id := range f.order {
		st.Proposals = append(st.Proposals, proposalOffset{ID: id, Offset: f.proposals[id]})
	}
	data, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	return fsmSnapshot(data), nil
}

// Restore replaces the state with a snapshot's.
func (f *fsm) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		return err
	}
	var st snapshotState
	if err := json.Unmarshal(data, &st); err != nil {
		return fmt.Errorf("metadata snapshot: %w", err)
	}
	if st.V != entryVersion {
		return fmt.Errorf("metadata snapshot: unknown version %d", st.V)
	}
	if st.Image == nil {
		st.Image = kraft.NewImage()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.image = st.Image
	f.next, f.start, f.records = st.NextOffset, st.NextOffset, nil
	f.proposals, f.order = map[string]int64{}, nil
	for _, p := range st.Proposals {
		f.remember(p.ID, p.Offset)
	}
	f.restores++
	f.restored = st.NextOffset
	return nil
}

type fsmSnapshot []byte

func (s fsmSnapshot) Persist(sink raft.SnapshotSink) error {
	if _, err := sink.Write(s); err != nil {
		sink.Cancel()
		return err
	}
	return sink.Close()
}

func (s fsmSnapshot) Release() {}
