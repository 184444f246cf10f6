package broker

import (
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// CONTRACT STUB (to be replaced): the transaction coordinator's glue.

// handleTxn serves the transaction coordinator's requests (InitProducerId,
// AddPartitionsToTxn, EndTxn) and the answers to the requests it sends
// (AddPartitionsToTxnResponse to a partition leader verifying a batch,
// WriteTxnMarkersResponse to the coordinator).
func (b *Broker) handleTxn(from sim.NodeID, m sim.Message) {}

// addPartitionToTxn is KIP-890's verification from a partition leader or
// the group coordinator: ask the transaction coordinator of txnID to add
// tp to the producer's transaction, then call done (once, later) with its
// answer. NONE means the batch (or the offset commit) may be appended.
func (b *Broker) addPartitionToTxn(txnID string, pid int64, epoch int16, tp protocol.TopicPartition, done func(protocol.ErrorCode)) {
	done(protocol.None)
}
