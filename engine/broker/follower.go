package broker

import (
	"fmt"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
)

// fetchFromLeader sends the follower's next Fetch: from its log end, with
// its current leader epoch and the epoch of its last record, so the leader
// can spot a diverging suffix.
func (b *Broker) fetchFromLeader(r *Replica) {
	if r.leader || r.Leader < 0 || r.fetchInFlight || !b.alive {
		return
	}
	r.fetchInFlight = true
	b.nextCorr++
	r.fetchCorr = b.nextCorr
	b.send(kraft.BrokerNode(r.Leader), protocol.FetchRequest{
		CorrelationID: b.nextCorr, ReplicaID: b.ID, TP: r.TP, FetchOffset: r.Log.EndOffset(),
		CurrentLeaderEpoch: r.LeaderEpoch, LastFetchedEpoch: r.Log.Epochs().Latest(),
		MaxBytes: int32(b.cfg.ReplicaFetchMaxBytes), MinBytes: 1, MaxWaitMs: int32(b.cfg.ReplicaFetchWaitMax.Milliseconds()),
	})
	// If the response never comes (a partition, a crash), try again later.
	gen := r.fetchGen
	b.after(b.cfg.ReplicaFetchWaitMax+b.cfg.ReplicaFetchBackoff, "fetch-retry", func() {
		if r.fetchGen == gen && r.fetchInFlight {
			r.fetchInFlight = false
			r.fetchGen++
			b.fetchFromLeader(r)
		}
	})
}

// handleFetchResponse is the follower's side: truncate a diverging suffix,
// or append the leader's batches as they are (offsets and epochs included)
// and take the leader's high watermark, capped at our own log end.
func (b *Broker) handleFetchResponse(m protocol.FetchResponse) {
	r := b.Replica(m.TP)
	// Only the answer to the fetch in flight counts: an answer to one that
	// timed out (delayed or held by a healed partition) describes the log
	// as it was then, and appending it after a truncation left a gap (the
	// VOPR found it). Kafka drops it with the timed-out connection.
	if r == nil || r.leader || !r.fetchInFlight || m.CorrelationID != r.fetchCorr {
		return
	}
	r.fetchInFlight = false
	r.fetchGen++
	switch {
	case m.Error != protocol.None:
		// Not (or no longer) the leader we think: wait for metadata.
		b.after(b.cfg.ReplicaFetchBackoff, "fetch-backoff", func() { b.fetchFromLeader(r) })
		return
	case m.DivergingEpoch != nil:
		b.truncateDiverging(r, *m.DivergingEpoch)
	case len(m.Records) > 0:
		if _, err := r.Log.AppendEncoded(m.Records); err != nil {
			b.events(fmt.Sprintf("%s: cannot append fetched data to %s/%d: %v", b.Node, r.TP.Topic, r.TP.Partition, err))
			b.after(b.cfg.ReplicaFetchBackoff, "fetch-backoff", func() { b.fetchFromLeader(r) })
			return
		}
	}
	if m.HighWatermark >= 0 {
		r.HW = max(r.HW, min(m.HighWatermark, r.Log.EndOffset()))
	}
	b.fetchFromLeader(r)
}

// truncateDiverging cuts the follower's log where its history parted from
// the leader's: at the end of the last common epoch.
func (b *Broker) truncateDiverging(r *Replica, div protocol.EpochEndOffset) {
	to := div.EndOffset
	if div.Epoch >= 0 {
		if e, localEnd := r.Log.Epochs().EndOffsetFor(div.Epoch, r.Log.EndOffset()); e == div.Epoch {
			to = min(to, localEnd)
		}
	}
	if to < 0 {
		to = 0
	}
	before := r.Log.EndOffset()
	if to >= before {
		r.Log.TruncateTo(to) // drops an empty epoch from the cache
		return
	}
	if err := r.Log.TruncateTo(to); err != nil {
		b.events(fmt.Sprintf("%s: truncating %s/%d failed: %v", b.Node, r.TP.Topic, r.TP.Partition, err))
		return
	}
	r.HW = min(r.HW, r.Log.EndOffset())
	b.events(fmt.Sprintf("%s: truncated %s/%d from %d to %d: its records there diverged from the leader's (epoch %d ends at %d)",
		b.Node, r.TP.Topic, r.TP.Partition, before, r.Log.EndOffset(), div.Epoch, div.EndOffset))
}
