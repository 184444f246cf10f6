package broker

import (
	"fmt"
	"slices"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
	"github.com/loglab/loglab/engine/txn/coordinator"
	"github.com/loglab/loglab/engine/txn/txnlog"
)

// txnCoordinator is this broker's transaction coordinator: one
// coordinator.Partition per __transaction_state partition it leads
// (txn_state.go), the marker channel (txn_marker_channel.go) and, as a
// partition leader, the AddPartitionsToTxn requests it sent
// (txn_verify.go).
type txnCoordinator struct {
	parts    map[int32]*txnPart
	creating bool // a CreateTopics for __transaction_state is in flight
	nextRef  uint64
	markers  map[int64]*markerInFlight // WriteTxnMarkers sent, by correlation id
	verifies map[int64]*verifyInFlight // AddPartitionsToTxn sent, by correlation id
	// abortTick, expireTick: the periodic tasks, running while a
	// partition is loaded (txn_state.go).
	abortTick, expireTick *sim.Event
}

func (b *Broker) txnState() *txnCoordinator {
	if b.txn == nil {
		b.txn = &txnCoordinator{parts: map[int32]*txnPart{}, markers: map[int64]*markerInFlight{}, verifies: map[int64]*verifyInFlight{}}
	}
	return b.txn
}

// handleInitProducerID is KafkaApis.handleInitProducerIdRequest: without
// a transactional id any broker hands out an id (initIdempotentProducer);
// with one, the transaction coordinator of that id answers.
func (b *Broker) handleInitProducerID(from sim.NodeID, m protocol.InitProducerIdRequest) {
	if m.TransactionalID == "" {
		b.initIdempotentProducer(from, m)
		return
	}
	b.handleTxnRequest(from, m, m.TransactionalID)
}

// initIdempotentProducer is handleInitProducerId without a transactional
// id: any broker hands out the next id of its block, at epoch 0.
func (b *Broker) initIdempotentProducer(from sim.NodeID, m protocol.InitProducerIdRequest) {
	b.nextProducerID(func(pid int64, code protocol.ErrorCode) {
		resp := protocol.InitProducerIdResponse{CorrelationID: m.CorrelationID, Error: code, ProducerID: protocol.NoProducerID, ProducerEpoch: protocol.NoProducerEpoch}
		if code == protocol.None {
			resp.ProducerID, resp.ProducerEpoch = pid, 0
		}
		b.send(from, resp)
	})
}

// txnErrorResponse is a request's answer carrying only an error.
func txnErrorResponse(m sim.Message, code protocol.ErrorCode) sim.Message {
	switch m := m.(type) {
	case protocol.InitProducerIdRequest:
		return protocol.InitProducerIdResponse{CorrelationID: m.CorrelationID, Error: code, ProducerID: protocol.NoProducerID, ProducerEpoch: protocol.NoProducerEpoch}
	case protocol.AddPartitionsToTxnRequest:
		return protocol.AddPartitionsToTxnResponse{CorrelationID: m.CorrelationID, TransactionalID: m.TransactionalID, Error: code}
	case protocol.EndTxnRequest:
		return protocol.EndTxnResponse{CorrelationID: m.CorrelationID, Error: code, ProducerID: protocol.NoProducerID, ProducerEpoch: protocol.NoProducerEpoch}
	}
	return nil
}

// txnPartitionFor is the __transaction_state partition of a transactional
// id in this broker's metadata, -1 while the topic does not exist.
func (b *Broker) txnPartitionFor(txnID string) int32 {
	t := b.image.Topic(TransactionStateTopic)
	if t == nil {
		return -1
	}
	return txnlog.PartitionFor(txnID, int32(len(t.Partitions)))
}

// handleTxnRequest routes a request to the coordinator of its
// partition: NOT_COORDINATOR if this broker does not lead it,
// COORDINATOR_LOAD_IN_PROGRESS while the partition is being loaded.
func (b *Broker) handleTxnRequest(from sim.NodeID, m sim.Message, txnID string) {
	tc := b.txnState()
	p := b.txnPartitionFor(txnID)
	tp := tc.parts[p]
	switch {
	case p < 0 || tp == nil:
		b.events(fmt.Sprintf("%s: %s for transactional id %s: NOT_COORDINATOR (%s)", b.Node, m.Kind(), txnID, b.txnCoordinatorHint(p)))
		b.send(from, txnErrorResponse(m, protocol.NotCoordinator))
		return
	case tp.p == nil:
		b.events(fmt.Sprintf("%s: %s for transactional id %s: COORDINATOR_LOAD_IN_PROGRESS (%s/%d is loading)", b.Node, m.Kind(), txnID, TransactionStateTopic, p))
		b.send(from, txnErrorResponse(m, protocol.CoordinatorLoadInProgress))
		return
	}
	tc.nextRef++
	ref := tc.nextRef
	tp.pending[ref] = pendingTxnRequest{from: from, req: m}
	b.callTxn(tp, ref, m, protocol.NoProducerID)
}

// callTxn hands the request to the partition's coordinator; when it needs
// a new producer id, the producer id manager is asked and the request runs
// again with it (if this broker still coordinates the partition).
func (b *Broker) callTxn(tp *txnPart, ref uint64, m sim.Message, pid int64) {
	now := b.sched.Clock.NowMs()
	var res coordinator.Result
	switch m := m.(type) {
	case protocol.InitProducerIdRequest:
		res = tp.p.InitProducerID(now, ref, m, pid)
	case protocol.AddPartitionsToTxnRequest:
		res = tp.p.AddPartitions(now, ref, m)
	case protocol.EndTxnRequest:
		res = tp.p.EndTxn(now, ref, m, pid)
	}
	if !res.NeedProducerID {
		b.applyTxnResult(tp, res)
		return
	}
	b.nextProducerID(func(pid int64, code protocol.ErrorCode) {
		pr, ok := tp.pending[ref]
		if !ok {
			return // answered NOT_COORDINATOR on unload
		}
		if code != protocol.None {
			delete(tp.pending, ref)
			b.send(pr.from, txnErrorResponse(m, code))
			return
		}
		if b.txnState().parts[tp.r.TP.Partition] != tp || tp.p == nil {
			delete(tp.pending, ref)
			b.send(pr.from, txnErrorResponse(m, protocol.NotCoordinator))
			return
		}
		b.callTxn(tp, ref, m, pid)
	})
}

// txnCoordinatorHint says why this broker is not the coordinator.
func (b *Broker) txnCoordinatorHint(p int32) string {
	if p < 0 {
		return TransactionStateTopic + " does not exist"
	}
	if pi := b.image.Partition(TransactionStateTopic, p); pi != nil && pi.Leader >= 0 {
		return fmt.Sprintf("%s/%d is led by b%d", TransactionStateTopic, p, pi.Leader)
	}
	return fmt.Sprintf("%s/%d has no leader", TransactionStateTopic, p)
}

// findTxnCoordinator is KafkaApis.handleFindCoordinatorRequest for a
// transactional id: the leader of its __transaction_state partition.
// Without the topic, the broker asks the controller to create it
// (AutoTopicCreationManager, TransactionCoordinator.transactionTopicConfigs)
// and answers COORDINATOR_NOT_AVAILABLE: the client retries.
func (b *Broker) findTxnCoordinator(resp *protocol.FindCoordinatorResponse, key string) {
	p := b.txnPartitionFor(key)
	if p < 0 {
		b.createTxnStateTopic()
		resp.Error = protocol.CoordinatorNotAvailable
		return
	}
	if leader := b.aliveLeader(TransactionStateTopic, p); leader >= 0 {
		resp.NodeID = leader
		return
	}
	resp.Error = protocol.CoordinatorNotAvailable
}

// createTxnStateTopic asks the controller for __transaction_state, once
// at a time. Like __consumer_offsets, the controller refuses a replication
// factor above the number of brokers (INVALID_REPLICATION_FACTOR), so with
// transaction.state.log.replication.factor=3 the topic appears only once
// three brokers run.
func (b *Broker) createTxnStateTopic() {
	tc := b.txnState()
	if tc.creating {
		return
	}
	tc.creating = true
	cfg := b.txnConfig()
	b.events(fmt.Sprintf("%s: %s does not exist: asking the controller to create it (%d partitions, replication factor %d)",
		b.Node, TransactionStateTopic, cfg.StateLogNumPartitions, cfg.StateLogReplicationFactor))
	b.nextCorr++
	b.send(kraft.ControllerNode, protocol.CreateTopicsRequest{CorrelationID: b.nextCorr, Name: TransactionStateTopic,
		NumPartitions: cfg.StateLogNumPartitions, ReplicationFactor: cfg.StateLogReplicationFactor,
		Configs: [][2]string{{"cleanup.policy", "compact"}, {"min.insync.replicas", fmt.Sprint(cfg.StateLogMinISR)},
			{"segment.bytes", fmt.Sprint(cfg.StateLogSegmentBytes)}}})
	// The answer goes to the group coordinator's handler (it traces a
	// refusal); ask again on a later FindCoordinator.
	b.after(b.cfg.HeartbeatInterval, "create-topics-timeout", func() { tc.creating = false })
}

// DescribeTransaction is DescribeTransactions for a transactional id this
// broker coordinates: NOT_COORDINATOR when it does not,
// COORDINATOR_LOAD_IN_PROGRESS while loading, TRANSACTIONAL_ID_NOT_FOUND
// for an unknown id.
func (b *Broker) DescribeTransaction(txnID string) (coordinator.Description, protocol.ErrorCode) {
	p := b.txnPartitionFor(txnID)
	var tp *txnPart
	if b.txn != nil {
		tp = b.txn.parts[p]
	}
	switch {
	case tp == nil:
		return coordinator.Description{TransactionalID: txnID}, protocol.NotCoordinator
	case tp.p == nil:
		return coordinator.Description{TransactionalID: txnID}, protocol.CoordinatorLoadInProgress
	}
	d, code := tp.p.Describe(txnID)
	d.CoordinatorID = b.ID
	return d, code
}

// TransactionalIDs lists the transactional ids of every
// __transaction_state partition this broker has loaded, sorted.
func (b *Broker) TransactionalIDs() []string {
	if b.txn == nil {
		return nil
	}
	var out []string
	for _, tp := range b.txn.parts {
		if tp.p != nil {
			out = append(out, tp.p.TransactionalIDs()...)
		}
	}
	slices.Sort(out)
	return out
}

// TxnLoading reports whether this broker leads the __transaction_state
// partition and is still loading it.
func (b *Broker) TxnLoading(partition int32) bool {
	return b.txn != nil && b.txn.parts[partition] != nil && b.txn.parts[partition].p == nil
}

// TxnCoordinatorPartition is the __transaction_state partition of a
// transactional id in this broker's metadata (its leader is the id's
// coordinator), -1 while the topic does not exist.
func (b *Broker) TxnCoordinatorPartition(txnID string) int32 { return b.txnPartitionFor(txnID) }
