package kraft

import "github.com/loglab/loglab/engine/protocol"

// MetadataLog is where the controller's decisions become durable and
// ordered. Append returns the records with their offsets: committed at
// once (MemLog, a quorum of processes), or later when the log also has
// Committed (the simulated KRaft quorum, see committedLog).
type MetadataLog interface {
	Append(records []protocol.MetadataRecord) ([]protocol.MetadataRecord, error)
	// Read returns committed records with offsets >= from.
	Read(from int64) []protocol.MetadataRecord
	// End is the offset the next record will get.
	End() int64
}

// MemLog is a MetadataLog in memory, committed as soon as appended.
type MemLog struct {
	records []protocol.MetadataRecord
}

// NewMemLog returns an empty metadata log.
func NewMemLog() *MemLog { return &MemLog{} }

func (m *MemLog) Append(records []protocol.MetadataRecord) ([]protocol.MetadataRecord, error) {
	out := make([]protocol.MetadataRecord, len(records))
	for i, r := range records {
		r.Offset = int64(len(m.records))
		m.records = append(m.records, r)
		out[i] = r
	}
	return out, nil
}

func (m *MemLog) Read(from int64) []protocol.MetadataRecord {
	if from < 0 {
		from = 0
	}
	if from >= int64(len(m.records)) {
		return nil
	}
	return append([]protocol.MetadataRecord(nil), m.records[from:]...)
}

func (m *MemLog) End() int64 { return int64(len(m.records)) }
