package broker

import (
	"slices"
	"time"

	"github.com/loglab/loglab/engine/protocol"
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
		b.send(from, protocol.FetchResponse{CorrelationID: m.CorrelationID, TP: m.TP, Error: code, HighWatermark: -1})
		return
	}
	if m.ReplicaID >= 0 {
		if div := b.divergence(r, m); div != nil {
			b.send(from, protocol.FetchResponse{CorrelationID: m.CorrelationID, TP: m.TP, HighWatermark: r.HW,
				LogStartOffset: r.Log.StartOffset(), LeaderEpoch: r.LeaderEpoch, DivergingEpoch: div})
			return
		}
		b.updateFollower(r, m)
	}
	if m.FetchOffset < r.Log.StartOffset() || m.FetchOffset > r.Log.EndOffset() {
		b.send(from, protocol.FetchResponse{CorrelationID: m.CorrelationID, TP: m.TP, Error: protocol.OffsetOutOfRange,
			HighWatermark: r.HW, LogStartOffset: r.Log.StartOffset(), LeaderEpoch: r.LeaderEpoch})
		return
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
	case r == nil || !r.leader:
		return protocol.NotLeaderOrFollower
	case m.CurrentLeaderEpoch >= 0 && m.CurrentLeaderEpoch < r.LeaderEpoch:
		return protocol.FencedLeaderEpoch
	case m.CurrentLeaderEpoch > r.LeaderEpoch:
		return protocol.UnknownLeaderEpoch
	}
	return protocol.None
}

// divergence is the leader's half of KIP-320/KIP-595: if the epoch the
// follower last fetched ended earlier here (or never existed here), the
// follower's log has a suffix the leader's lacks; tell it where to cut.
func (b *Broker) divergence(r *Replica, m protocol.FetchRequest) *protocol.EpochEndOffset {
	if m.LastFetchedEpoch < 0 {
		return nil
	}
	epoch, end := r.Log.Epochs().EndOffsetFor(m.LastFetchedEpoch, r.Log.EndOffset())
	if epoch != m.LastFetchedEpoch || end < m.FetchOffset {
		return &protocol.EpochEndOffset{Epoch: epoch, EndOffset: end}
	}
	return nil
}

// updateFollower records a follower's position (Kafka's
// updateFollowerFetchState): caught up if it fetched from the leader's log
// end, or from where the leader's log ended at its previous fetch.
func (b *Broker) updateFollower(r *Replica, m protocol.FetchRequest) {
	f := r.follower(m.ReplicaID)
	if f == nil {
		return
	}
	now := b.sched.Clock.Elapsed()
	leo := r.Log.EndOffset()
	switch {
	case m.FetchOffset >= leo:
		f.LastCaughtUp = now
	case m.FetchOffset >= f.LastFetchLeaderLEO && f.LEO >= 0:
		f.LastCaughtUp = max(f.LastCaughtUp, f.LastFetchTime)
	}
	f.LEO, f.LastFetchTime, f.LastFetchLeaderLEO = m.FetchOffset, now, leo
	b.maybeExpandISR(r, f)
	if r.maybeIncrementHW(b.ID) {
		b.onHWChange(r)
	}
}

// tryCompleteFetch answers a fetch when it has data (or must answer now).
func (b *Broker) tryCompleteFetch(d *delayedFetch, force bool) bool {
	r, m := d.replica, d.req
	if !r.leader {
		b.send(d.from, protocol.FetchResponse{CorrelationID: m.CorrelationID, TP: m.TP, Error: protocol.NotLeaderOrFollower, HighWatermark: -1})
		return true
	}
	limit := r.Log.EndOffset()
	if m.ReplicaID < 0 {
		limit = r.HW // consumers see only what every ISR member has
	}
	maxBytes := int64(m.MaxBytes)
	if maxBytes <= 0 {
		maxBytes = b.cfg.ReplicaFetchMaxBytes
	}
	var data []byte
	if m.FetchOffset < limit && m.FetchOffset >= r.Log.StartOffset() {
		fd, err := r.Log.Read(m.FetchOffset, maxBytes, limit)
		if err == nil {
			for _, s := range fd.Slices {
				if raw, err := s.Bytes(); err == nil {
					data = append(data, raw...)
				}
			}
		}
	}
	if len(data) < max(1, int(m.MinBytes)) && !force {
		return false
	}
	b.send(d.from, protocol.FetchResponse{CorrelationID: m.CorrelationID, TP: m.TP, HighWatermark: r.HW,
		LogStartOffset: r.Log.StartOffset(), LeaderEpoch: r.LeaderEpoch, Records: data})
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
			b.send(d.from, protocol.FetchResponse{CorrelationID: d.req.CorrelationID, TP: d.req.TP, Error: code, HighWatermark: -1})
		}
	}
}

func (b *Broker) removeFetch(d *delayedFetch) {
	if d.timeout != nil {
		d.timeout.Cancelled = true
	}
	b.fetches = slices.DeleteFunc(b.fetches, func(x *delayedFetch) bool { return x == d })
}
