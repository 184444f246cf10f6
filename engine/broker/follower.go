package broker

import (
	"fmt"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/replica"
	"github.com/loglab/loglab/engine/sim"
)

// fetchFromLeader sends the follower's next Fetch: from its log end, with
// its current leader epoch and the epoch of its last record, so the leader
// can spot a diverging suffix.
func (b *Broker) fetchFromLeader(r *Replica) {
	if r.leader || r.Leader < 0 || r.fetchInFlight || !b.alive || r.offline || r.failing {
		return
	}
	b.sendToLeader(r, func(corr int64) sim.Message {
		return protocol.FetchRequest{
			CorrelationID: corr, ReplicaID: b.ID, TP: r.TP, FetchOffset: r.Log.EndOffset(),
			CurrentLeaderEpoch: r.LeaderEpoch, LastFetchedEpoch: r.Log.Epochs().Latest(),
			MaxBytes: int32(b.cfg.ReplicaFetchMaxBytes), MinBytes: 1, MaxWaitMs: int32(b.cfg.ReplicaFetchWaitMax.Milliseconds()),
		}
	})
}

// sendToLeader sends the follower's one request in flight to its leader (a
// Fetch, or a ListOffsets while it resets an out-of-range position); if no
// answer comes (a partition, a crash), it starts over with a fetch later.
func (b *Broker) sendToLeader(r *Replica, req func(corr int64) sim.Message) {
	r.fetchInFlight = true
	b.nextCorr++
	r.fetchCorr = b.nextCorr
	b.send(kraft.BrokerNode(r.Leader), req(r.fetchCorr))
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
	case m.Error == protocol.OffsetOutOfRange:
		b.askLeaderOffset(r, -1)
		return
	case m.Error != protocol.None:
		// Not (or no longer) the leader we think: wait for metadata.
		b.after(b.cfg.ReplicaFetchBackoff, "fetch-backoff", func() { b.fetchFromLeader(r) })
		return
	case m.DivergingEpoch != nil:
		// Truncate, but leave the high watermark alone until a fetch after
		// the truncation: a cut to an earlier epoch's end may still keep
		// records the leader does not have, and the leader's high watermark
		// must not vouch for them (Kafka's processFetchRequest skips the
		// partition data of a diverging response for this reason).
		b.truncateDiverging(r, *m.DivergingEpoch)
		b.fetchFromLeader(r)
		return
	case len(m.Records) > 0:
		if first, ok := straddlesEmptyLog(r.Log.StartOffset(), r.Log.EndOffset(), m.Records); ok {
			// Partition.appendRecordsToFollowerOrFutureReplica: an empty log
			// whose start lies inside the leader's first batch (the leader's
			// log start, or a retention cut, fell mid-batch) starts again at
			// the batch's base offset; refusing the batch would refuse every
			// later fetch from the same offset.
			if err := r.Log.TruncateFullyAndStartAt(first); err != nil && !b.storageFailed(r, "truncating", err) {
				b.events(fmt.Sprintf("%s: cannot restart the empty log of %s/%d at %d: %v", b.Node, r.TP.Topic, r.TP.Partition, first, err))
			}
		}
		if _, err := r.Log.AppendEncoded(m.Records); err != nil {
			if b.storageFailed(r, "appending records to", err) {
				return // the fetcher stops with the replica
			}
			b.events(fmt.Sprintf("%s: cannot append fetched data to %s/%d: %v", b.Node, r.TP.Topic, r.TP.Partition, err))
			b.after(b.cfg.ReplicaFetchBackoff, "fetch-backoff", func() { b.fetchFromLeader(r) })
			return
		}
	}
	if m.HighWatermark >= 0 {
		r.HW = max(r.HW, min(m.HighWatermark, r.Log.EndOffset()))
	}
	// The leader's log start offset becomes ours (ReplicaFetcherThread's
	// maybeIncrementLogStartOffset, LeaderOffsetIncremented): what its
	// retention deleted is gone here too, even where our own retention
	// would have kept it. Otherwise records below it that diverged from
	// the leader's (written by a leader that lost them in an unclean
	// election) stay, since no epoch check looks below the leader's log
	// start, and come back if this replica is elected. Kafka refuses a
	// log start past the high watermark.
	if m.LogStartOffset <= r.HW {
		if err := r.Log.MaybeIncrementLogStartOffset(m.LogStartOffset); err != nil && !b.storageFailed(r, "incrementing the log start offset of", err) {
			b.events(fmt.Sprintf("%s: moving the log start offset of %s/%d failed: %v", b.Node, r.TP.Topic, r.TP.Partition, err))
		}
	}
	b.fetchFromLeader(r)
}

// truncateDiverging cuts the follower's log where its history parted from
// the leader's, as replica.Truncation decides. When it cannot tell yet
// (the leader named an epoch this log never had), it cuts to the end of
// its own earlier epoch and the next fetch asks again with that one.
func (b *Broker) truncateDiverging(r *Replica, div protocol.EpochEndOffset) {
	before := r.Log.EndOffset()
	to, final := replica.Truncation(div.Epoch, div.EndOffset, r.endOffsetFor, before, before)
	to = max(to, 0)
	if to >= before {
		r.Log.TruncateTo(to) // drops an empty epoch from the cache
		return
	}
	if err := r.Log.TruncateTo(to); err != nil {
		if b.storageFailed(r, "truncating", err) {
			return
		}
		b.events(fmt.Sprintf("%s: truncating %s/%d failed: %v", b.Node, r.TP.Topic, r.TP.Partition, err))
		return
	}
	r.HW = min(r.HW, r.Log.EndOffset())
	why := fmt.Sprintf("epoch %d ends at %d", div.Epoch, div.EndOffset)
	if !final {
		why = fmt.Sprintf("the leader's epoch %d, ending at %d, is unknown here: cut to the end of an earlier epoch and ask again", div.Epoch, div.EndOffset)
	}
	b.events(fmt.Sprintf("%s: truncated %s/%d from %d to %d: its records there diverged from the leader's (%s)",
		b.Node, r.TP.Topic, r.TP.Partition, before, r.Log.EndOffset(), why))
}

// straddlesEmptyLog reports whether fetched batches begin below an empty
// log's end (start == end) and reach it, and returns the first batch's
// base offset: the case Kafka's UnexpectedAppendOffsetException handler
// in Partition.appendRecordsToFollowerOrFutureReplica truncates fully for.
func straddlesEmptyLog(start, end int64, batches []byte) (int64, bool) {
	if start != end {
		return 0, false
	}
	first, last := int64(-1), int64(-1)
	for rest := batches; len(rest) > 0; {
		h, err := record.ReadHeader(rest)
		if err != nil || h.Size() > len(rest) {
			break
		}
		if first < 0 {
			first = h.BaseOffset
		}
		last = h.LastOffset()
		rest = rest[h.Size():]
	}
	return first, first >= 0 && first < end && last >= end
}
