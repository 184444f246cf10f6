package cluster

import (
	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
)

// metadataLog is the committed metadata log as the simulation reads it:
// the records committed since the cluster started, in offset order, kept
// here so that reading them (the checker does after every step, the views
// and metrics do) never depends on which controller answers. With the
// simulated quorum, the first voter to commit an offset adds it (commit);
// with controllers in other processes, Append goes to their quorum and
// returns once committed.
type metadataLog struct {
	remote kraft.Quorum // controllers in other processes, or nil
	first  int64        // offset of recent[0]: where the log ended when the cluster started
	recent []protocol.MetadataRecord
	epochs []int32 // the leader epoch of each of recent (simulated quorum)
	// onCommit sees every record committed (metrics, the transcript).
	onCommit func([]protocol.MetadataRecord)
}

func newMetadataLog(remote kraft.Quorum) *metadataLog {
	m := &metadataLog{remote: remote}
	if remote != nil {
		m.first = remote.End()
	}
	return m
}

// commit adds records committed by the simulated quorum.
func (m *metadataLog) commit(records []protocol.MetadataRecord) {
	m.recent = append(m.recent, records...)
	if m.onCommit != nil {
		m.onCommit(records)
	}
}

// Append commits records through the quorum of processes.
func (m *metadataLog) Append(records []protocol.MetadataRecord) ([]protocol.MetadataRecord, error) {
	out, err := m.remote.Append(records)
	if err != nil {
		return nil, err
	}
	m.commit(out)
	return out, nil
}

func (m *metadataLog) Read(from int64) []protocol.MetadataRecord {
	recs, _, _ := m.ReadLog(from)
	return recs
}

// ReadLog reads from memory when it can; records from before this
// cluster started come from the quorum of processes, which may have
// compacted them.
func (m *metadataLog) ReadLog(from int64) ([]protocol.MetadataRecord, int64, error) {
	from = max(from, 0)
	if from < m.first && m.remote != nil {
		return m.remote.ReadLog(from)
	}
	from = max(from, m.first)
	if from >= m.End() {
		return nil, m.first, nil
	}
	return append([]protocol.MetadataRecord(nil), m.recent[from-m.first:]...), m.first, nil
}

func (m *metadataLog) End() int64 { return m.first + int64(len(m.recent)) }
