package broker

import (
	"fmt"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/replica"
	"github.com/loglab/loglab/engine/sim"
)

// askLeaderOffset is the follower's answer to OFFSET_OUT_OF_RANGE, as
// Kafka's AbstractFetcherThread.fetchOffsetAndTruncate: ask the leader
// where its log ends (timestamp -1), then, if needed, where it starts (-2),
// with ListOffsets requests naming this broker as the replica.
func (b *Broker) askLeaderOffset(r *Replica, timestamp int64) {
	if r.leader || r.Leader < 0 || !b.alive {
		return
	}
	r.askingOffset = timestamp
	b.sendToLeader(r, func(corr int64) sim.Message {
		return protocol.ListOffsetsRequest{CorrelationID: corr, ReplicaID: b.ID, TP: r.TP, Timestamp: timestamp}
	})
}

// handleListOffsetsResponse takes the leader's answer: after "latest",
// truncate to a leader whose log ends below ours (replica.OutOfRangeLatest)
// or ask for "earliest"; after "earliest", empty the log and start at the
// leader's log start if retention deleted past our end
// (replica.OutOfRangeEarliest, Kafka's truncateFullyAndStartAt). Then fetch.
func (b *Broker) handleListOffsetsResponse(m protocol.ListOffsetsResponse) {
	r := b.Replica(m.TP)
	if r == nil || r.leader || !r.fetchInFlight || m.CorrelationID != r.fetchCorr {
		return
	}
	r.fetchInFlight = false
	r.fetchGen++
	if m.Error != protocol.None {
		b.after(b.cfg.ReplicaFetchBackoff, "fetch-backoff", func() { b.fetchFromLeader(r) })
		return
	}
	leo := r.Log.EndOffset()
	name := fmt.Sprintf("%s: %s/%d", b.Node, r.TP.Topic, r.TP.Partition)
	var err error
	switch r.askingOffset {
	case -1:
		to, done := replica.OutOfRangeLatest(m.Offset, leo)
		if !done {
			b.askLeaderOffset(r, -2)
			return
		}
		if err = r.Log.TruncateTo(to); err == nil {
			r.HW = min(r.HW, r.Log.EndOffset())
			b.events(fmt.Sprintf("%s: fetch offset %d is out of range and the leader's log ends at %d: truncated to %d",
				name, leo, m.Offset, r.Log.EndOffset()))
		}
	default:
		to, fully := replica.OutOfRangeEarliest(m.Offset, leo)
		if fully {
			if err = r.Log.TruncateFullyAndStartAt(to); err == nil {
				// An empty log's high watermark is its start (UnifiedLog.truncateFullyAndStartAt).
				r.HW = r.Log.EndOffset()
				b.events(fmt.Sprintf("%s: fetch offset %d is out of range and the leader's log starts at %d: emptied the log to start there",
					name, leo, m.Offset))
			}
		}
	}
	if err != nil && b.storageFailed(r, "truncating", err) {
		return
	}
	if err != nil {
		b.events(fmt.Sprintf("%s: resetting after OFFSET_OUT_OF_RANGE failed: %v", name, err))
		b.after(b.cfg.ReplicaFetchBackoff, "fetch-backoff", func() { b.fetchFromLeader(r) })
		return
	}
	b.fetchFromLeader(r)
}
