package cluster

import (
	"time"

	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/check"
	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/group/coordinator"
	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/kraft/raft"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
	txncoordinator "github.com/loglab/loglab/engine/txn/coordinator"
)

// The cluster as the checker sees it: check.Cluster, implemented by
// reading the cluster's state and never changing it.

// checkedCluster is the read-only view of a cluster the checker reads
// (check.Cluster).
type checkedCluster struct{ c *Cluster }

func (v checkedCluster) Elapsed() time.Duration        { return v.c.clock.Elapsed() }
func (v checkedCluster) Brokers() []*broker.Broker     { return v.c.brokers }
func (v checkedCluster) Broker(id int) *broker.Broker  { return v.c.Broker(id) }
func (v checkedCluster) ActiveController() int         { return v.c.activeID }
func (v checkedCluster) AckedRecords() []AckedRecord   { return v.c.acked }
func (v checkedCluster) FailedProduces() []AckedRecord { return v.c.failed }
func (v checkedCluster) Consumers() []*client.Consumer { return v.c.consumers }
func (v checkedCluster) HasGroups() bool               { return v.c.HasGroups() }

func (v checkedCluster) Controllers() int { return v.c.config.Controllers }

func (v checkedCluster) QuorumNode(id int) *raft.Node {
	if vt := v.c.voter(id); vt != nil {
		return vt.node
	}
	return nil
}

func (v checkedCluster) MetadataImage() *kraft.Image {
	if v.c.controller == nil {
		return nil
	}
	return v.c.controller.Image()
}

func (v checkedCluster) ActiveLogEnd() int64 { return v.c.activeLogEnd() }

// activeLogEnd is where the active controller's metadata log ends: it
// applied every record it wrote, committed or not (Kafka's active
// controller replays its own writes at once).
func (c *Cluster) activeLogEnd() int64 {
	if v := c.voter(c.activeID); v != nil && c.remote == nil {
		return v.node.Log().EndOffset()
	}
	return c.meta.End()
}

func (v checkedCluster) CommittedMetadata() check.CommittedMetadata {
	m := v.c.meta
	return check.CommittedMetadata{First: m.first, Records: m.recent, Epochs: m.epochs}
}

func (v checkedCluster) LeaderReplica(tp protocol.TopicPartition) *broker.Replica {
	return v.c.leaderReplica(tp)
}

func (v checkedCluster) GroupCoordinator(group string) (int32, int) {
	gc := v.c.Coordinator(group)
	return gc.Partition, gc.Broker
}

func (v checkedCluster) ControllersUp() int               { return v.c.controllersUp() }
func (v checkedCluster) ControllerUp(id int) bool         { return v.c.controllerUp[id-1] }
func (v checkedCluster) ControllerNode(id int) sim.NodeID { return controllerNode(id) }
func (v checkedCluster) QuorumConnected() bool            { return v.c.quorumConnected() }
func (v checkedCluster) Connected(a, b sim.NodeID) bool   { return v.c.net.Connected(a, b) }
func (v checkedCluster) Separator(a, b sim.NodeID) string { return v.c.separator(a, b) }
func (v checkedCluster) NetFaultWords() string            { return v.c.netFaultWords() }
func (v checkedCluster) NetDescribe() string              { return v.c.net.Describe() }
func (v checkedCluster) ApplicationBusy(name string) bool { return v.c.busy(name) }
func (v checkedCluster) Producers() []*client.Producer    { return v.c.producers }
func (v checkedCluster) TxnPartition(id string) int32     { return v.c.TxnPartition(id) }
func (v checkedCluster) NowMs() int64                     { return v.c.NowMs() }

func (v checkedCluster) ApplicationHolding(name string) bool {
	return len(v.c.ledger.inHand[name]) > 0
}

func (v checkedCluster) DescribeGroup(group string) (coordinator.GroupDescription, bool) {
	d, _, ok := v.c.DescribeGroup(group)
	return d, ok
}

func (v checkedCluster) DescribeTransaction(id string) (txncoordinator.Description, protocol.ErrorCode) {
	return v.c.DescribeTransaction(id)
}

func (v checkedCluster) TxnConfig() broker.TxnConfig { return v.c.config.Broker.Txn }
