package broker

import (
	"slices"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// verifyInFlight is an AddPartitionsToTxn this broker sent as a partition
// leader (or group coordinator) before appending a transaction's first
// batch to a partition.
type verifyInFlight struct {
	to      sim.NodeID
	tp      protocol.TopicPartition
	done    func(protocol.ErrorCode)
	timeout *sim.Event
}

// addPartitionToTxn is KIP-890's verification with transaction version
// 2 (AddPartitionsToTxnManager.addOrVerifyTransaction): ask the transaction
// coordinator of txnID, the leader of its __transaction_state partition in
// this broker's metadata, to add tp to the producer's transaction, then
// call done (once, later) with the code the produce (or TxnOffsetCommit)
// must answer. NONE means the batch may be appended.
func (b *Broker) addPartitionToTxn(txnID string, pid int64, epoch int16, tp protocol.TopicPartition, done func(protocol.ErrorCode)) {
	leader := int32(-1)
	if p := b.txnPartitionFor(txnID); p >= 0 {
		if pi := b.image.Partition(TransactionStateTopic, p); pi != nil {
			leader = pi.Leader
		}
	}
	if leader < 0 {
		// No coordinator known: COORDINATOR_NOT_AVAILABLE, answered later
		// as every other outcome is.
		b.after(0, "txn-verify", func() { done(VerificationError(protocol.CoordinatorNotAvailable)) })
		return
	}
	tc := b.txnState()
	b.nextCorr++
	corr := b.nextCorr
	v := &verifyInFlight{to: kraft.BrokerNode(leader), tp: tp, done: done}
	tc.verifies[corr] = v
	v.timeout = b.after(b.txnConfig().RequestTimeout, "txn-verify-timeout", func() {
		if tc.verifies[corr] == v {
			delete(tc.verifies, corr)
			done(VerificationError(protocol.NetworkException))
		}
	})
	b.send(v.to, protocol.AddPartitionsToTxnRequest{CorrelationID: corr, TransactionalID: txnID, ProducerID: pid,
		ProducerEpoch: epoch, Partitions: []protocol.TopicPartition{tp}, VerifyOnly: false})
}

func (b *Broker) handleAddPartitionsToTxnResponse(m protocol.AddPartitionsToTxnResponse) {
	if b.txn == nil {
		return
	}
	v := b.txn.verifies[m.CorrelationID]
	if v == nil {
		return
	}
	delete(b.txn.verifies, m.CorrelationID)
	v.timeout.Cancelled = true
	code := m.Error
	if code == protocol.None {
		code = protocol.NetworkException // no result for the partition: should not happen
		for _, r := range m.Results {
			if r.TP == v.tp {
				code = r.Error
			}
		}
	}
	v.done(VerificationError(code))
}

// failVerifies fails the verifications waiting on a broker that died.
func (b *Broker) failVerifies(peer sim.NodeID) {
	var corrs []int64
	for corr, v := range b.txn.verifies {
		if v.to == peer {
			corrs = append(corrs, corr)
		}
	}
	slices.Sort(corrs)
	for _, corr := range corrs {
		v := b.txn.verifies[corr]
		delete(b.txn.verifies, corr)
		v.timeout.Cancelled = true
		v.done(VerificationError(protocol.NetworkException))
	}
}

// VerificationError maps the transaction coordinator's answer to what the
// produce must answer: AddPartitionsToTxnManager turns PRODUCER_FENCED into
// INVALID_PRODUCER_EPOCH (the error a produce answers for an old epoch),
// and ReplicaManager turns the retriable coordinator errors, which older
// clients would not retry on a produce, into NOT_ENOUGH_REPLICAS ("Unable
// to verify the partition has been added to the transaction"), retriable
// and not asking for a metadata refresh.
func VerificationError(code protocol.ErrorCode) protocol.ErrorCode {
	switch code {
	case protocol.ProducerFenced:
		return protocol.InvalidProducerEpoch
	case protocol.ConcurrentTransactions, protocol.NetworkException, protocol.CoordinatorLoadInProgress,
		protocol.CoordinatorNotAvailable, protocol.NotCoordinator:
		return protocol.NotEnoughReplicas
	}
	return code
}
