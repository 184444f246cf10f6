package broker

import (
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// CONTRACT STUB (to be replaced): the partition leader's WriteTxnMarkers.

// handleWriteTxnMarkers appends a COMMIT or ABORT control batch to each
// partition and answers once they are committed (acks=all).
func (b *Broker) handleWriteTxnMarkers(from sim.NodeID, m protocol.WriteTxnMarkersRequest) {}
