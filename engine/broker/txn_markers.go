package broker

import (
	"slices"
	"time"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/sim"
)

// markerTimeout is request.timeout.ms, which Kafka's WriteTxnMarkers
// handler gives its acks=all append (KafkaApis.handleWriteTxnMarkersRequest).
const markerTimeout = 30 * time.Second

// offsetsTopic is the group coordinator's topic: a marker there also
// completes the producer's transactional offset commits.
const offsetsTopic = "__consumer_offsets"

// delayedMarkers is a WriteTxnMarkers request whose markers are appended
// and wait for the high watermark (the produce purgatory, acks=all).
type delayedMarkers struct {
	from    sim.NodeID
	req     protocol.WriteTxnMarkersRequest
	results []protocol.WriteTxnMarkersPartitionResult
	waiting []markerWait
	timeout *sim.Event
}

// markerWait is one appended marker waiting for the high watermark.
type markerWait struct {
	result   int // index in results
	replica  *Replica
	required int64 // the marker's offset + 1
}

// handleWriteTxnMarkers is the partition leader's side of ending a
// transaction (KafkaApis.handleWriteTxnMarkersRequest): one COMMIT or
// ABORT control batch per partition, appended with the COORDINATOR origin
// (the producer epoch and coordinator epoch are checked), answered per
// partition once the high watermark has passed every marker.
func (b *Broker) handleWriteTxnMarkers(from sim.NodeID, m protocol.WriteTxnMarkersRequest) {
	d := &delayedMarkers{from: from, req: m}
	typ := record.Abort
	if m.Committed {
		typ = record.Commit
	}
	for _, tp := range m.Partitions {
		i := len(d.results)
		d.results = append(d.results, protocol.WriteTxnMarkersPartitionResult{TP: tp})
		r := b.Replica(tp)
		switch {
		case r == nil && b.image.Topic(tp.Topic) == nil:
			d.results[i].Error = protocol.UnknownTopicOrPartition
			continue
		case r == nil || !r.leader:
			d.results[i].Error = protocol.NotLeaderOrFollower
			continue
		}
		if code := r.state(b.ID).AppendError(-1); code != protocol.None {
			d.results[i].Error = code
			continue
		}
		batch := record.NewControlBatch(0, b.sched.Clock.NowMs(), m.ProducerID, m.ProducerEpoch, r.LeaderEpoch,
			record.EndTxnMarker{Type: typ, CoordinatorEpoch: m.CoordinatorEpoch})
		info, err := r.Log.AppendMarker(&batch, r.LeaderEpoch, int16(m.TransactionVersion))
		if err != nil {
			d.results[i].Error = appendError(err)
			b.storageFailed(r, "appending records to", err)
			continue
		}
		if tp.Topic == offsetsTopic {
			// The group coordinator makes the producer's pending offsets
			// visible (commit) or drops them (abort).
			b.onTxnMarker(r, m.ProducerID, m.Committed)
		}
		d.waiting = append(d.waiting, markerWait{result: i, replica: r, required: info.LastOffset + 1})
		b.completeFetches(r)
		if b.maybeIncrementHW(r) {
			b.onHWChange(r)
		}
	}
	if b.tryCompleteMarkers(d) {
		return
	}
	d.timeout = b.after(markerTimeout, "txn-markers-timeout", func() {
		b.removeMarkers(d)
		for _, w := range d.waiting {
			d.results[w.result].Error = protocol.RequestTimedOut
		}
		b.answerMarkers(d)
	})
	b.markers = append(b.markers, d)
}

// tryCompleteMarkers settles the markers the high watermark has passed
// (or whose partition this broker no longer leads) and answers once none
// is left waiting.
func (b *Broker) tryCompleteMarkers(d *delayedMarkers) bool {
	d.waiting = slices.DeleteFunc(d.waiting, func(w markerWait) bool {
		if !w.replica.leader {
			d.results[w.result].Error = protocol.NotLeaderOrFollower
			return true
		}
		done, code := w.replica.state(b.ID).CheckEnoughReplicasReachOffset(w.replica.HW, w.required)
		if done {
			d.results[w.result].Error = code
		}
		return done
	})
	if len(d.waiting) > 0 {
		return false
	}
	b.answerMarkers(d)
	return true
}

func (b *Broker) answerMarkers(d *delayedMarkers) {
	b.send(d.from, protocol.WriteTxnMarkersResponse{CorrelationID: d.req.CorrelationID, ProducerID: d.req.ProducerID,
		Partitions: d.results})
}

func (b *Broker) completeMarkers(r *Replica) {
	for _, d := range slices.Clone(b.markers) {
		if waitsOn(d, r) && b.tryCompleteMarkers(d) {
			b.removeMarkers(d)
		}
	}
}

// failMarkers answers the markers waiting on r with code (leadership lost).
func (b *Broker) failMarkers(r *Replica, code protocol.ErrorCode) {
	for _, d := range slices.Clone(b.markers) {
		if !waitsOn(d, r) {
			continue
		}
		d.waiting = slices.DeleteFunc(d.waiting, func(w markerWait) bool {
			if w.replica == r {
				d.results[w.result].Error = code
				return true
			}
			return false
		})
		if len(d.waiting) == 0 {
			b.removeMarkers(d)
			b.answerMarkers(d)
		}
	}
}

func waitsOn(d *delayedMarkers, r *Replica) bool {
	return slices.ContainsFunc(d.waiting, func(w markerWait) bool { return w.replica == r })
}

func (b *Broker) removeMarkers(d *delayedMarkers) {
	if d.timeout != nil {
		d.timeout.Cancelled = true
	}
	b.markers = slices.DeleteFunc(b.markers, func(x *delayedMarkers) bool { return x == d })
}
