package cluster

import (
	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
)

// metadataLog is the quorum's log as the simulation uses it: appends go
// to raft and block until committed; the records committed since the
// cluster started are also kept here, so that reading them (the checker
// does after every step, brokers catch up from it) never waits on raft
// and never depends on which controller answers.
type metadataLog struct {
	q      kraft.Quorum
	first  int64 // offset of recent[0]: where the log ended when the cluster started
	recent []protocol.MetadataRecord
	// onCommit sees every record committed through Append (metrics.go).
	onCommit func([]protocol.MetadataRecord)
}

func newMetadataLog(q kraft.Quorum) *metadataLog {
	return &metadataLog{q: q, first: q.End()}
}

func (m *metadataLog) Append(records []protocol.MetadataRecord) ([]protocol.MetadataRecord, error) {
	out, err := m.q.Append(records)
	if err != nil {
		return nil, err
	}
	m.recent = append(m.recent, out...)
	if m.onCommit != nil {
		m.onCommit(out)
	}
	return out, nil
}

func (m *metadataLog) Read(from int64) []protocol.MetadataRecord {
	recs, _, _ := m.ReadLog(from)
	return recs
}

// ReadLog reads from memory when it can; records from before this
// cluster started come from the quorum, which may have compacted them.
func (m *metadataLog) ReadLog(from int64) ([]protocol.MetadataRecord, int64, error) {
	from = max(from, 0)
	if from < m.first {
		return m.q.ReadLog(from)
	}
	if from >= m.End() {
		return nil, m.first, nil
	}
	return append([]protocol.MetadataRecord(nil), m.recent[from-m.first:]...), m.first, nil
}

func (m *metadataLog) End() int64 { return m.first + int64(len(m.recent)) }
