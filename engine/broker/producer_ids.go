package broker

import "github.com/loglab/loglab/engine/protocol"

// CONTRACT STUB (to be replaced): the broker's producer id manager
// (Kafka's RPCProducerIdManager) asks the controller for blocks of ids.

// nextProducerID hands out the next producer id of this broker's block,
// asking the controller for a new block when it runs out; done runs once,
// later, with the id or an error (COORDINATOR_LOAD_IN_PROGRESS while no
// block is available, as Kafka's manager answers).
func (b *Broker) nextProducerID(done func(pid int64, code protocol.ErrorCode)) {
	done(protocol.NoProducerID, protocol.CoordinatorLoadInProgress)
}

// handleAllocateProducerIDs takes the controller's grant.
func (b *Broker) handleAllocateProducerIDs(m protocol.AllocateProducerIdsResponse) {}
