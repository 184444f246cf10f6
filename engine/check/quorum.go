package check

import (
	"fmt"
	"slices"

	"github.com/loglab/loglab/engine/kraft/raft"
	"github.com/loglab/loglab/engine/protocol"
)

// KRaft's safety, checked on the simulated quorum after every event (the
// VOPR runs with `check invariants always=true`); liveness_quorum.go has
// its liveness. Each mirrors a property of Raft (Ongaro's thesis, §3.6)
// that KIP-595 keeps:
//
//   - kraft-one-leader: at most one leader per epoch (Election Safety:
//     a vote is granted once per epoch, a leader needs a majority);
//   - kraft-committed: every voter commits the same record at the same
//     offset in the same epoch (State Machine Safety; the cluster's
//     onVoterCommit compares each commit with its committed log and
//     calls ReportQuorum);
//   - kraft-high-watermark: no voter's high watermark is past its log end
//     (a voter cannot have committed what it does not hold);
//   - kraft-committed-log: a committed metadata record is never lost or
//     reordered on any voter: every running voter's log holds, below its
//     high watermark, exactly the committed log (same records, same
//     offsets, same epochs), and its snapshot ends at a committed offset
//     of the committed epoch (Log Matching over the committed prefix;
//     KafkaRaftClient never truncates below the high watermark);
//   - kraft-leader-completeness: a leader whose epoch is at least the
//     epoch of the last committed record holds the whole committed log
//     (Leader Completeness: the vote's log-up-to-date check elects only a
//     voter holding every committed record). An older leader that has not
//     yet learnt it was deposed may lack records committed after it, so
//     it is not asked.
//
// The committed log the voters are compared with is the cluster's
// CommittedMetadata: the first voter to commit an offset adds it
// (engine/cluster/quorum_sim.go). The comparisons are stateless: a voter's log holds only what follows its latest snapshot
// (SnapshotEvery records at most past its high watermark, plus what is
// uncommitted), so they stay cheap enough for every event.

// checkQuorum looks at every voter now.
func (k *Checker) checkQuorum() {
	m := k.c.CommittedMetadata()
	lastEpoch := int32(-1)
	if n := len(m.Epochs); n > 0 {
		lastEpoch = m.Epochs[n-1]
	}
	for id := 1; id <= k.c.Controllers(); id++ {
		n := k.c.QuorumNode(id)
		if n == nil || !n.Up() {
			continue
		}
		l, hw := n.Log(), n.HighWatermark()
		if n.Role() == raft.Leader {
			k.NoteQuorumLeader(n.Epoch(), id)
		}
		if hw > l.EndOffset() && l.EndOffset() >= l.StartOffset() && hw > l.StartOffset() {
			k.report("kraft-high-watermark", fmt.Sprintf("controller %d's high watermark %d is past its log end %d", id, hw, l.EndOffset()))
		}
		k.checkCommittedPrefix(id, l, hw)
		if n.Role() == raft.Leader && n.Epoch() >= lastEpoch {
			k.checkLeaderCompleteness(id, n.Epoch(), l)
		}
	}
}

// checkCommittedPrefix compares voter id's log below its high watermark
// with the committed log, and its snapshot with the committed epochs.
func (k *Checker) checkCommittedPrefix(id int, l *raft.Log, hw int64) {
	m := k.c.CommittedMetadata()
	if snap := l.LatestSnapshot(); snap != nil {
		end := snap.ID.EndOffset
		if end > hw {
			k.report("kraft-committed-log", fmt.Sprintf("controller %d holds a snapshot to offset %d, past its high watermark %d: a snapshot of uncommitted metadata", id, end, hw))
		}
		if i := end - 1 - m.First; i >= 0 && i < int64(len(m.Epochs)) && m.Epochs[i] != snap.ID.Epoch {
			k.report("kraft-committed-log", fmt.Sprintf("controller %d's snapshot ends at offset %d in epoch %d; the committed record there is of epoch %d", id, end-1, snap.ID.Epoch, m.Epochs[i]))
		}
	}
	from, to := max(l.StartOffset(), m.First), min(hw, l.EndOffset(), m.End())
	for off := from; off < to; off++ {
		e, _ := l.Entry(off)
		if !k.sameAsCommitted(e, off) {
			c := m.Records[off-m.First]
			k.report("kraft-committed-log", fmt.Sprintf("controller %d's log holds %q (epoch %d) at offset %d, below its high watermark %d; the committed record there is %q (epoch %d)",
				id, e.Record.Describe(), e.Epoch, off, hw, c.Describe(), m.Epochs[off-m.First]))
			return // the first difference says it; the rest follow from it
		}
	}
}

// checkLeaderCompleteness requires leader id of epoch to hold every
// committed record (those below its log start are in its snapshot,
// which checkCommittedPrefix compares).
func (k *Checker) checkLeaderCompleteness(id int, epoch int32, l *raft.Log) {
	m := k.c.CommittedMetadata()
	if l.EndOffset() < m.End() {
		k.report("kraft-leader-completeness", fmt.Sprintf("controller %d leads epoch %d with a log ending at %d, short of the committed metadata log's end %d", id, epoch, l.EndOffset(), m.End()))
	}
	from, to := max(l.StartOffset(), m.First), min(l.EndOffset(), m.End())
	for off := from; off < to; off++ {
		e, _ := l.Entry(off)
		if !k.sameAsCommitted(e, off) {
			c := m.Records[off-m.First]
			k.report("kraft-leader-completeness", fmt.Sprintf("controller %d leads epoch %d holding %q (epoch %d) at offset %d, where %q (epoch %d) was committed",
				id, epoch, e.Record.Describe(), e.Epoch, off, c.Describe(), m.Epochs[off-m.First]))
			return
		}
	}
}

// sameAsCommitted says whether e is the committed record at offset off
// (which the committed log must hold), written in the same epoch.
func (k *Checker) sameAsCommitted(e protocol.MetadataEntry, off int64) bool {
	m := k.c.CommittedMetadata()
	i := off - m.First
	return e.Record.Offset == off && e.Epoch == m.Epochs[i] && sameMetadataRecord(e.Record, m.Records[i])
}

// sameMetadataRecord compares every field of two metadata records
// (TestSameMetadataRecordComparesEveryField counts them).
func sameMetadataRecord(a, b protocol.MetadataRecord) bool {
	return a.Offset == b.Offset && a.Type == b.Type && a.BrokerID == b.BrokerID && a.BrokerEpoch == b.BrokerEpoch &&
		a.Topic == b.Topic && a.Partitions == b.Partitions && a.Partition == b.Partition &&
		slices.Equal(a.Replicas, b.Replicas) && slices.Equal(a.ISR, b.ISR) && a.Leader == b.Leader &&
		a.LeaderEpoch == b.LeaderEpoch && a.PartitionEpoch == b.PartitionEpoch && a.Unclean == b.Unclean &&
		a.Name == b.Name && a.Value == b.Value && a.NextProducerID == b.NextProducerID
}

// NoteQuorumLeader records who led epoch, reporting a second leader.
func (k *Checker) NoteQuorumLeader(epoch int32, id int) {
	if k.quorumLeaders == nil {
		k.quorumLeaders = map[int32]int{}
	}
	if prev, ok := k.quorumLeaders[epoch]; ok && prev != id {
		k.report("kraft-one-leader", fmt.Sprintf("controllers %d and %d both led epoch %d", prev, id, epoch))
		return
	}
	k.quorumLeaders[epoch] = id
}

// ReportQuorum reports a committed metadata record that differs between
// voters (the cluster compares each commit with its committed log).
func (k *Checker) ReportQuorum(detail string) { k.report("kraft-committed", detail) }
