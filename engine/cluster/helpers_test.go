package cluster

import (
	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/sim"
)

// dropFetchResponsesFrom cuts a leader's replication: every FetchResponse
// it sends is dropped (until healed), including answers to fetches already
// parked at it.
func dropFetchResponsesFrom(broker int) sim.DropRule {
	return sim.DropRule{From: kraft.BrokerNode(int32(broker)), Kind: "FetchResponse", Remaining: -1}
}
