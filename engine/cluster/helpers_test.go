package cluster

import (
	"testing"
	"time"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/sim"
)

// dropFetchResponsesFrom cuts a leader's replication: every FetchResponse
// it sends is dropped (until healed), including answers to fetches already
// parked at it.
func dropFetchResponsesFrom(broker int) sim.DropRule {
	return sim.DropRule{From: kraft.BrokerNode(int32(broker)), Kind: "FetchResponse", Remaining: -1}
}

// waitActive runs the cluster until a controller is active: after a
// controller crash the others need a fetch timeout and an election.
func waitActive(t *testing.T, c *Cluster) {
	t.Helper()
	if ok, err := c.RunUntil(func() bool { return c.ActiveController() != 0 }, time.Minute); err != nil || !ok {
		t.Fatalf("no controller became active (err %v)", err)
	}
}
