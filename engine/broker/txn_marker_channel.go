package broker

import (
	"fmt"
	"slices"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
	"github.com/loglab/loglab/engine/txn/coordinator"
)

// markerInFlight is one WriteTxnMarkers this coordinator sent to a
// partition leader (Kafka's TransactionMarkerChannelManager queues them
// per broker and sends one request per broker and poll).
type markerInFlight struct {
	tp         *txnPart
	req        coordinator.MarkerRequest
	partitions []protocol.TopicPartition
	to         sim.NodeID
	timeout    *sim.Event
}

// sendTxnMarkers sends the markers of one transaction for the given
// partitions, one request per current leader (from this broker's
// metadata). A partition whose topic is gone needs no marker
// (Kafka removes it from the transaction); one with no leader is tried
// again after retry.backoff.ms.
func (b *Broker) sendTxnMarkers(tp *txnPart, req coordinator.MarkerRequest, partitions []protocol.TopicPartition) {
	if b.txn.parts[tp.r.TP.Partition] != tp || tp.p == nil {
		return
	}
	byLeader := map[int32][]protocol.TopicPartition{}
	var leaders []int32
	var leaderless []protocol.TopicPartition
	for _, p := range partitions {
		pi := b.image.Partition(p.Topic, p.Partition)
		switch {
		case pi == nil:
			b.events(fmt.Sprintf("%s: transactional id %s: %s/%d no longer exists: no marker needed", b.Node, req.TransactionalID, p.Topic, p.Partition))
			b.applyTxnResult(tp, tp.p.MarkerWritten(b.sched.Clock.NowMs(), req.TransactionalID, req.ProducerID, req.ProducerEpoch, p))
		case pi.Leader < 0:
			leaderless = append(leaderless, p)
		default:
			if _, ok := byLeader[pi.Leader]; !ok {
				leaders = append(leaders, pi.Leader)
			}
			byLeader[pi.Leader] = append(byLeader[pi.Leader], p)
		}
	}
	slices.Sort(leaders)
	for _, l := range leaders {
		b.nextCorr++
		corr := b.nextCorr
		mf := &markerInFlight{tp: tp, req: req, partitions: byLeader[l], to: kraft.BrokerNode(l)}
		b.txn.markers[corr] = mf
		mf.timeout = b.after(b.txnConfig().RequestTimeout, "txn-marker-timeout", func() {
			if b.txn.markers[corr] == mf {
				delete(b.txn.markers, corr)
				b.retryTxnMarkers(mf.tp, mf.req, mf.partitions)
			}
		})
		b.send(mf.to, protocol.WriteTxnMarkersRequest{CorrelationID: corr, ProducerID: req.ProducerID, ProducerEpoch: req.ProducerEpoch,
			Committed: req.Committed, Partitions: slices.Clone(byLeader[l]), CoordinatorEpoch: req.CoordinatorEpoch,
			TransactionVersion: req.TransactionVersion})
	}
	if len(leaderless) > 0 {
		b.retryTxnMarkers(tp, req, leaderless)
	}
}

// retryTxnMarkers sends markers again after retry.backoff.ms, to the
// leaders known then.
func (b *Broker) retryTxnMarkers(tp *txnPart, req coordinator.MarkerRequest, partitions []protocol.TopicPartition) {
	b.after(b.txnConfig().RetryBackoff, "txn-marker-retry", func() { b.sendTxnMarkers(tp, req, partitions) })
}

// handleWriteTxnMarkersResponse is TransactionMarkerRequestCompletionHandler:
// a written marker removes its partition from the transaction; a
// leadership change, a missing partition or an under-replicated one is
// retried; a fenced epoch stops the sending.
func (b *Broker) handleWriteTxnMarkersResponse(m protocol.WriteTxnMarkersResponse) {
	if b.txn == nil {
		return
	}
	mf := b.txn.markers[m.CorrelationID]
	if mf == nil {
		return
	}
	delete(b.txn.markers, m.CorrelationID)
	mf.timeout.Cancelled = true
	tp := mf.tp
	if b.txn.parts[tp.r.TP.Partition] != tp || tp.p == nil {
		return
	}
	var retry []protocol.TopicPartition
	answered := map[protocol.TopicPartition]bool{}
	for _, pr := range m.Partitions {
		answered[pr.TP] = true
		switch pr.Error {
		case protocol.None:
			b.applyTxnResult(tp, tp.p.MarkerWritten(b.sched.Clock.NowMs(), mf.req.TransactionalID, mf.req.ProducerID, mf.req.ProducerEpoch, pr.TP))
		case protocol.InvalidProducerEpoch, protocol.TransactionCoordinatorFenced:
			b.applyTxnResult(tp, tp.p.MarkersAbandoned(mf.req.TransactionalID, pr.Error))
			return
		default:
			b.events(fmt.Sprintf("%s: transactional id %s: marker for %s/%d failed with %s: retrying", b.Node, mf.req.TransactionalID,
				pr.TP.Topic, pr.TP.Partition, pr.Error.Name()))
			retry = append(retry, pr.TP)
		}
	}
	for _, p := range mf.partitions {
		if !answered[p] {
			retry = append(retry, p)
		}
	}
	if len(retry) > 0 {
		b.retryTxnMarkers(tp, mf.req, retry)
	}
}

// dropTxnMarkers forgets the markers in flight of a partition given up.
func (b *Broker) dropTxnMarkers(tp *txnPart) {
	for corr, mf := range b.txn.markers {
		if mf.tp == tp {
			mf.timeout.Cancelled = true
			delete(b.txn.markers, corr)
		}
	}
}

// onTxnPeerDisconnected: a broker we wait on died; its markers are sent
// again (to the partitions' next leaders) and its verifications fail
// with NETWORK_EXCEPTION, as Kafka's NetworkClient reports a disconnection.
func (b *Broker) onTxnPeerDisconnected(peer sim.NodeID) {
	if b.txn == nil {
		return
	}
	var corrs []int64
	for corr, mf := range b.txn.markers {
		if mf.to == peer {
			corrs = append(corrs, corr)
		}
	}
	slices.Sort(corrs)
	for _, corr := range corrs {
		mf := b.txn.markers[corr]
		delete(b.txn.markers, corr)
		mf.timeout.Cancelled = true
		b.retryTxnMarkers(mf.tp, mf.req, mf.partitions)
	}
	b.failVerifies(peer)
}
