package raft

import (
	"slices"

	"github.com/loglab/loglab/engine/protocol"
)

// QuorumState is what a node must remember across a crash to never vote
// twice in an epoch or forget an epoch it saw: Kafka's quorum-state file
// (ElectionState). Ids are -1 for none.
type QuorumState struct {
	LeaderID    int32
	LeaderEpoch int32
	VotedID     int32
}

// Store keeps a node's durable state. Every call returns once the state
// is durable (Kafka flushes the log before it acknowledges or votes).
type Store interface {
	// Load returns what an earlier run stored (zero values, Leader and
	// Voted -1, for a new node).
	Load() (QuorumState, *Snapshot, []protocol.MetadataEntry, error)
	SaveState(QuorumState) error
	Append(entries []protocol.MetadataEntry) error
	// TruncateTo removes every entry at offset and above.
	TruncateTo(offset int64) error
	// SaveSnapshot stores snap and drops the entries below its end offset.
	SaveSnapshot(snap Snapshot) error
	Close() error
}

// MemStore is a Store in memory: a simulated disk that survives the
// node's crashes (the simulation's controllers fsync everything, as
// Kafka's do) but not the process.
type MemStore struct {
	state    QuorumState
	snapshot *Snapshot
	entries  []protocol.MetadataEntry
}

// NewMemStore returns an empty store.
func NewMemStore() *MemStore {
	return &MemStore{state: QuorumState{LeaderID: -1, VotedID: -1}}
}

func (m *MemStore) Load() (QuorumState, *Snapshot, []protocol.MetadataEntry, error) {
	return m.state, m.snapshot, slices.Clone(m.entries), nil
}

func (m *MemStore) SaveState(s QuorumState) error { m.state = s; return nil }

func (m *MemStore) Append(entries []protocol.MetadataEntry) error {
	m.entries = append(m.entries, entries...)
	return nil
}

func (m *MemStore) TruncateTo(offset int64) error {
	m.entries = slices.DeleteFunc(m.entries, func(e protocol.MetadataEntry) bool { return e.Record.Offset >= offset })
	return nil
}

func (m *MemStore) SaveSnapshot(snap Snapshot) error {
	m.snapshot = &snap
	m.entries = slices.DeleteFunc(m.entries, func(e protocol.MetadataEntry) bool { return e.Record.Offset < snap.ID.EndOffset })
	return nil
}

func (m *MemStore) Close() error { return nil }
