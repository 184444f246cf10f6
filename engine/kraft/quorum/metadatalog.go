package quorum

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/hashicorp/raft"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
)

var _ kraft.Quorum = (*Quorum)(nil)

// maxProposals bounds how often one Append proposes its records before it
// gives up: every retry follows a leader change.
const maxProposals = 10

// Append proposes the records as one raft entry on the active controller,
// whichever controller that is, and blocks until the quorum committed it
// and the active controller applied it; it returns the records with their
// offsets. With no active controller for Config.LeaderWait it fails with
// ErrNotController.
//
// ErrNotController means "not known to be committed", as a request timeout
// does in Kafka: when the quorum lost its majority while the entry was in
// flight, the entry stays in the old leader's log, and if that controller
// wins again once a majority is back, raft commits it after all. Records
// are then in the log at the next offsets and in every image, exactly once.
// So a caller must take its state from the committed log (Read, Image), not
// from whether Append succeeded; Kafka's active controller does the same.
//
// When the leader is lost while the entry is in flight, raft cannot say
// whether the entry will still commit. Append then waits for the next
// leader to apply everything committed before its term, looks the entry's
// proposal id up there, and proposes it again only if it is not there, so
// the records are committed exactly once (see entry).
func (q *Quorum) Append(records []protocol.MetadataRecord) ([]protocol.MetadataRecord, error) {
	if len(records) == 0 {
		return nil, nil
	}
	id := q.nonce + "-" + strconv.FormatUint(q.seq.Add(1), 36)
	data, err := encodeEntry(id, records)
	if err != nil {
		return nil, err
	}
	uncertain := false
	for attempt := 1; ; attempt++ {
		p, err := q.activeController(q.cfg.LeaderWait)
		if err != nil {
			return nil, err
		}
		if uncertain {
			q.uncertain.Add(1)
			if first, ok := p.fsm.proposal(id); ok {
				out := make([]protocol.MetadataRecord, len(records))
				for i, r := range records {
					r.Offset = first + int64(i)
					out[i] = r
				}
				return out, nil
			}
			uncertain = false
		}
		f := p.raft.Apply(data, 0)
		err = p.wait(f, "committing an append")
		if err == nil {
			res, _ := f.Response().(applied)
			if res.err == nil && q.cfg.SnapshotOnCommit {
				q.snapshotIfDue(p)
			}
			return res.records, res.err
		}
		switch {
		case errors.Is(err, raft.ErrNotLeader), errors.Is(err, raft.ErrLeadershipTransferInProgress):
			// Refused before it was appended anywhere.
		case errors.Is(err, raft.ErrLeadershipLost), errors.Is(err, raft.ErrRaftShutdown),
			errors.Is(err, raft.ErrAbortedByRestore), errors.Is(err, raft.ErrEnqueueTimeout):
			uncertain = true
		case errors.Is(err, errRaftHung):
			// Maybe committed, maybe not, as for a leader change; but a
			// leader that does not answer for so long is a bug, not a
			// failover to wait out.
			return nil, fmt.Errorf("%w: %v", ErrNotController, err)
		default:
			return nil, err
		}
		if attempt >= maxProposals {
			return nil, fmt.Errorf("%w: the active controller changed %d times during one append (%v)", ErrNotController, attempt, err)
		}
	}
}

// ReadLog returns the committed records from offset from on, as the active
// controller holds them (the most advanced live controller when there is
// none for LeaderWait), and the first offset it holds. When from is below that offset the
// records before it were compacted into a snapshot this controller
// restored: ReadLog returns the records from that offset on and
// ErrCompacted. See fsm for when that happens.
func (q *Quorum) ReadLog(from int64) ([]protocol.MetadataRecord, int64, error) {
	f := q.reader()
	if f == nil {
		return nil, 0, ErrNotController
	}
	return f.read(from)
}

// Read returns the committed records with offsets >= from; records compacted
// into a snapshot are left out (ReadLog says so).
func (q *Quorum) Read(from int64) []protocol.MetadataRecord {
	recs, _, _ := q.ReadLog(from)
	return recs
}

// End is the offset the next record will get.
func (q *Quorum) End() int64 {
	f := q.reader()
	if f == nil {
		return 0
	}
	return f.end()
}

// reader is the state machine reads go to: the active controller's, once
// it applied everything before its term (waiting up to LeaderWait for one,
// so that End is exact across a failover); else the live controller that
// applied the most; else the one used last.
func (q *Quorum) reader() *fsm {
	if p, err := q.activeController(q.cfg.LeaderWait); err == nil {
		q.mu.Lock()
		q.last = p.fsm
		q.mu.Unlock()
		return p.fsm
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	var best *fsm
	for _, n := range q.nodes {
		if n.p != nil && (best == nil || n.p.fsm.end() > best.end()) {
			best = n.p.fsm
		}
	}
	if best != nil {
		q.last = best
	}
	return q.last
}
