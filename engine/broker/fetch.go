package broker

import (
	"slices"
	"time"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/replica"
	"github.com/loglab/loglab/engine/sim"
)

// delayedFetch is a fetch parked until data arrives or MaxWaitMs passes
// (Kafka's fetch purgatory): followers and caught-up consumers long-poll.
type delayedFetch struct {
	from    sim.NodeID
	req     protocol.FetchRequest
	replica *Replica
	timeout *sim.Event
}

// handleFetch serves consumers (up to the high watermark) and followers
// (up to the log end, and their fetch offset tells the leader how far they
// are, which is how the ISR and high watermark move).
func (b *Broker) handleFetch(from sim.NodeID, m protocol.FetchRequest) {
	r := b.Replica(m.TP)
	if code := b.checkFetch(r, m); code != protocol.None {
		b.send(from, protocol.FetchResponse{CorrelationID: m.CorrelationID, TP: m.TP, Error: code, HighWatermark: -1, LastStableOffset: -1})
		return
	}
	lastFetchedEpoch := m.LastFetchedEpoch
	if m.ReplicaID < 0 {
		lastFetchedEpoch = -1 // consumers do not name epochs here
	}
	div, code := replica.ReadCheck(lastFetchedEpoch, m.FetchOffset, r.Log.StartOffset(), r.Log.EndOffset(), r.endOffsetFor)
	switch {
	case code != protocol.None:
		// The follower (or consumer) asks for what is not here; a follower
		// then asks where the log ends and starts (askLeaderOffset). Its
		// position is not recorded, as in Kafka, where the read throws
		// before updateFollowerFetchState.
		b.send(from, protocol.FetchResponse{CorrelationID: m.CorrelationID, TP: m.TP, Error: code,
			HighWatermark: r.HW, LastStableOffset: r.LastStableOffset(), LogStartOffset: r.Log.StartOffset(), LeaderEpoch: r.LeaderEpoch})
		return
	case div != nil:
		b.send(from, protocol.FetchResponse{CorrelationID: m.CorrelationID, TP: m.TP, HighWatermark: r.HW,
			LastStableOffset: r.LastStableOffset(), LogStartOffset: r.Log.StartOffset(), LeaderEpoch: r.LeaderEpoch, DivergingEpoch: div})
		return
	}
	if m.ReplicaID >= 0 {
		b.updateFollower(r, m)
	}
	d := &delayedFetch{from: from, req: m, replica: r}
	if b.tryCompleteFetch(d, m.MaxWaitMs <= 0) {
		return
	}
	d.timeout = b.after(time.Duration(m.MaxWaitMs)*time.Millisecond, "fetch-wait", func() {
		b.removeFetch(d)
		b.tryCompleteFetch(d, true)
	})
	b.fetches = append(b.fetches, d)
}

// checkFetch validates leadership and the requester's leader epoch.
func (b *Broker) checkFetch(r *Replica, m protocol.FetchRequest) protocol.ErrorCode {
	switch {
	case r == nil && b.image.Topic(m.TP.Topic) == nil:
		return protocol.UnknownTopicOrPartition
	case b.isOffline(m.TP) || (r != nil && r.failing):
		return protocol.KafkaStorageError
	case r == nil || !r.leader:
		return protocol.NotLeaderOrFollower
	case m.CurrentLeaderEpoch >= 0 && m.CurrentLeaderEpoch < r.LeaderEpoch:
		return protocol.FencedLeaderEpoch
	case m.CurrentLeaderEpoch > r.LeaderEpoch:
		return protocol.UnknownLeaderEpoch
	}
	return protocol.None
}

// updateFollower records a follower's position (Kafka's
// updateFollowerFetchState): its fetch offset is its log end, and whether
// it reached the leader's log end tells how long it has lagged.
func (b *Broker) updateFollower(r *Replica, m protocol.FetchRequest) {
	st := r.state(b.ID)
	f := st.Follower(m.ReplicaID)
	if f == nil {
		return
	}
	f.UpdateFetchState(m.FetchOffset, b.now(), r.Log.EndOffset())
	b.maybeExpandISR(r, m.ReplicaID)
	if b.maybeIncrementHW(r) {
		b.onHWChange(r)
	}
}

// tryCompleteFetch answers a fetch when it has data (or must answer now).
func (b *Broker) tryCompleteFetch(d *delayedFetch, force bool) bool {
	r, m := d.replica, d.req
	if !r.leader {
		b.send(d.from, protocol.FetchResponse{CorrelationID: m.CorrelationID, TP: m.TP, Error: protocol.NotLeaderOrFollower, HighWatermark: -1, LastStableOffset: -1})
		return true
	}
	lso := r.LastStableOffset()
	limit := r.Log.EndOffset()
	switch {
	case m.ReplicaID >= 0:
	case m.IsolationLevel == protocol.ReadCommitted:
		// Only decided transactions (UnifiedLog.read with
		// FetchIsolation.TXN_COMMITTED): nothing at or past the LSO.
		limit = lso
	default:
		limit = r.HW // consumers see only what every ISR member has
	}
	maxBytes := int64(m.MaxBytes)
	if maxBytes <= 0 {
		maxBytes = b.cfg.ReplicaFetchMaxBytes
	}
	var data []byte
	var aborted []protocol.AbortedTransaction
	if m.FetchOffset < limit && m.FetchOffset >= r.Log.StartOffset() {
		fd, err := r.Log.Read(m.FetchOffset, maxBytes, limit)
		if err == nil {
			for _, s := range fd.Slices {
				if raw, err := s.Bytes(); err == nil {
					data = append(data, raw...)
				}
			}
		}
		if len(data) > 0 && m.ReplicaID < 0 && m.IsolationLevel == protocol.ReadCommitted {
			// The aborted transactions overlapping what is returned
			// (UnifiedLog.addAbortedTransactions), so the consumer can drop
			// their records.
			aborted = r.Log.AbortedTransactions(m.FetchOffset, endOfBatches(data))
		}
	}
	if len(data) < max(1, int(m.MinBytes)) && !force {
		return false
	}
	b.send(d.from, protocol.FetchResponse{CorrelationID: m.CorrelationID, TP: m.TP, HighWatermark: r.HW,
		LastStableOffset: lso, LogStartOffset: r.Log.StartOffset(), LeaderEpoch: r.LeaderEpoch, Records: data,
		AbortedTransactions: aborted})
	return true
}

func (b *Broker) completeFetches(r *Replica) {
	for _, d := range slices.Clone(b.fetches) {
		if d.replica == r && b.tryCompleteFetch(d, false) {
			b.removeFetch(d)
		}
	}
}

func (b *Broker) failFetches(r *Replica, code protocol.ErrorCode) {
	for _, d := range slices.Clone(b.fetches) {
		if d.replica == r {
			b.removeFetch(d)
			b.send(d.from, protocol.FetchResponse{CorrelationID: d.req.CorrelationID, TP: d.req.TP, Error: code, HighWatermark: -1, LastStableOffset: -1})
		}
	}
}

func (b *Broker) removeFetch(d *delayedFetch) {
	if d.timeout != nil {
		d.timeout.Cancelled = true
	}
	b.fetches = slices.DeleteFunc(b.fetches, func(x *delayedFetch) bool { return x == d })
}

// endOfBatches is the offset just past the last of the whole batches in
// data: the upper bound of a fetch's aborted-transaction lookup.
func endOfBatches(data []byte) int64 {
	end := int64(0)
	for len(data) > 0 {
		h, err := record.ReadHeader(data)
		if err != nil || h.Size() > len(data) {
			break
		}
		end = h.NextOffset()
		data = data[h.Size():]
	}
	return end
}
