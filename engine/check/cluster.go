// Package check is the invariant checker: the safety properties
// replication, the KRaft quorum, consumer groups and transactions must
// keep, checked after every lab command (or every event) on a simulated
// cluster. It reads the cluster only through Cluster, a read-only view
// engine/cluster hands it, and never changes what it reads: the cluster
// calls it, never the other way round. Its liveness properties
// (liveness*.go) say what keeps a cluster from having converged, which
// the cluster's Stabilize asks.
package check

import (
	"time"

	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/group/coordinator"
	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/kraft/raft"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
	txncoordinator "github.com/loglab/loglab/engine/txn/coordinator"
)

// Cluster is what the checker reads of the cluster it watches. Every
// method only reads; the brokers, replicas, logs and nodes it returns are
// the cluster's own, looked at, never driven.
type Cluster interface {
	// Elapsed is the virtual time since the cluster started.
	Elapsed() time.Duration
	// Brokers lists the brokers by id; Broker is broker id, or nil.
	Brokers() []*broker.Broker
	Broker(id int) *broker.Broker
	// MetadataImage is the active controller's image (the last one's
	// while there is none); nil before the cluster has a controller.
	MetadataImage() *kraft.Image
	// ActiveController is the active controller's id, 0 for none;
	// ActiveLogEnd is where its metadata log ends (it applied every
	// record it wrote, committed or not).
	ActiveController() int
	ActiveLogEnd() int64
	// CommittedMetadata is the metadata log committed since the cluster
	// started.
	CommittedMetadata() CommittedMetadata
	// Controllers is how many controllers the cluster has; QuorumNode is
	// controller id's KRaft node (ids from 1), nil when the controllers
	// are separate processes.
	Controllers() int
	QuorumNode(id int) *raft.Node
	// AckedRecords are the records producers were told were written, in
	// the order they were acknowledged; FailedProduces the produces that
	// failed (perhaps written all the same, Offset -1).
	AckedRecords() []AckedRecord
	FailedProduces() []AckedRecord
	// LeaderReplica is tp's replica on the live broker the metadata names
	// its leader, when that broker leads it; nil otherwise.
	LeaderReplica(tp protocol.TopicPartition) *broker.Replica
	// Consumers lists the lab's consumers, closed ones too; HasGroups says
	// whether a running one is in a group.
	Consumers() []*client.Consumer
	HasGroups() bool
	// GroupCoordinator is where group lives: its __consumer_offsets
	// partition (-1 when the topic does not exist yet) and the broker the
	// metadata names its leader (0 for none).
	GroupCoordinator(group string) (partition int32, leader int)

	// What the liveness properties (liveness*.go) read besides: the
	// faults in force that excuse a lag, the applications, the groups'
	// and transactions' coordinators.

	// ControllersUp counts the controllers running; ControllerUp says
	// whether controller id runs; ControllerNode is its network address;
	// QuorumConnected whether a majority of them runs and reaches each
	// other.
	ControllersUp() int
	ControllerUp(id int) bool
	ControllerNode(id int) sim.NodeID
	QuorumConnected() bool
	// Connected says whether a can reach b on the simulated network;
	// Separator names what keeps them apart (a partition or a cut link);
	// NetFaultWords names the network faults in force ("" for none);
	// NetDescribe is the network's partitions and cut links.
	Connected(a, b sim.NodeID) bool
	Separator(a, b sim.NodeID) string
	NetFaultWords() string
	NetDescribe() string
	// ApplicationHolding says whether consumer's application holds
	// records it has not processed; ApplicationBusy whether it is away
	// from poll (processing, or holding records).
	ApplicationHolding(consumer string) bool
	ApplicationBusy(consumer string) bool
	// DescribeGroup is group as its coordinator describes it; false when
	// no live coordinator has it loaded.
	DescribeGroup(group string) (coordinator.GroupDescription, bool)
	// Producers lists the lab's producers, crashed ones too.
	Producers() []*client.Producer
	// DescribeTransaction is transactional id's transaction as its
	// coordinator describes it; TxnPartition is its __transaction_state
	// partition (-1 while the topic does not exist); TxnConfig the
	// brokers' transaction settings.
	DescribeTransaction(id string) (txncoordinator.Description, protocol.ErrorCode)
	TxnPartition(id string) int32
	TxnConfig() broker.TxnConfig
	// NowMs is the virtual wall clock, in milliseconds.
	NowMs() int64
}

// CommittedMetadata is the committed metadata log since the cluster
// started: Records[i] is at offset First+i, committed in leader epoch
// Epochs[i] (the simulated quorum's; empty with controllers in other
// processes). The slices are the cluster's: read, never written.
type CommittedMetadata struct {
	First   int64
	Records []protocol.MetadataRecord
	Epochs  []int32
}

// End is the offset after the last committed record.
func (m CommittedMetadata) End() int64 { return m.First + int64(len(m.Records)) }

// From is the committed records from offset from on (from at least First).
func (m CommittedMetadata) From(from int64) []protocol.MetadataRecord {
	if from >= m.End() {
		return nil
	}
	return m.Records[from-m.First:]
}

// AckedRecord is a record a producer was told was written: where, what,
// with which acks, and when.
type AckedRecord struct {
	TP     protocol.TopicPartition
	Offset int64
	Key    []byte
	Value  []byte // nil: a tombstone
	Acks   int16
	At     time.Duration
}
