package kraft

import (
	"math"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// ProducerIDBlockSize is how many producer ids the controller grants a
// broker at a time (Kafka's ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE).
const ProducerIDBlockSize = 1000

// unknownServerError is Kafka's UNKNOWN_SERVER_ERROR (-1).
const unknownServerError protocol.ErrorCode = -1

// allocateProducerIDs is the controller's AllocateProducerIds (KIP-730),
// Kafka's QuorumController.allocateProducerIds: the grant is a ProducerIds
// record, and the broker hears of its block only once that record is
// committed, so a controller failing over can never grant the same ids
// twice: its successor replays the record.
func (c *Controller) allocateProducerIDs(from sim.NodeID, m protocol.AllocateProducerIdsRequest) {
	resp, rec := c.producerIDBlock(m)
	if rec != nil {
		recs := c.commit(*rec)
		if recs == nil {
			// The append failed: this controller is no longer the active
			// one. Kafka answers NOT_CONTROLLER and the broker's channel
			// sends the request again to the next controller; loglab's
			// broker resends an unanswered request (engine/broker).
			return
		}
		c.afterCommit(recs, func() { c.net.Send(ControllerNode, from, resp) })
		return
	}
	c.net.Send(ControllerNode, from, resp)
}

// producerIDBlock decides an AllocateProducerIds request, as Kafka's
// ProducerIdControlManager.generateNextProducerId does: the broker must be
// registered at the epoch it gives (ClusterControlManager.checkBrokerEpoch:
// STALE_BROKER_EPOCH otherwise; Kafka does not check that it is unfenced),
// and the block is the next ProducerIDBlockSize ids after the last grant,
// the first starting at 0. The record to commit is nil on an error.
func (c *Controller) producerIDBlock(m protocol.AllocateProducerIdsRequest) (protocol.AllocateProducerIdsResponse, *protocol.MetadataRecord) {
	b := c.image.Broker(m.BrokerID)
	if b == nil || b.Epoch != m.BrokerEpoch {
		return protocol.AllocateProducerIdsResponse{Error: protocol.StaleBrokerEpoch}, nil
	}
	first := c.image.ProducerIDs.NextProducerID
	if first > math.MaxInt64-ProducerIDBlockSize {
		// Kafka: UnknownServerException, "Exhausted all producerIds".
		return protocol.AllocateProducerIdsResponse{Error: unknownServerError}, nil
	}
	rec := protocol.MetadataRecord{Type: "ProducerIds", BrokerID: m.BrokerID, BrokerEpoch: m.BrokerEpoch,
		NextProducerID: first + ProducerIDBlockSize}
	return protocol.AllocateProducerIdsResponse{ProducerIDStart: first, ProducerIDLen: ProducerIDBlockSize}, &rec
}
