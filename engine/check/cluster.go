// Package check is the invariant checker: the safety properties
// replication, the KRaft quorum, consumer groups and transactions must
// keep, checked after every lab command (or every event) on a simulated
// cluster. It reads the cluster only through Cluster, a read-only view
// engine/cluster hands it, and never changes what it reads: the cluster
// calls it, never the other way round.
package check

import (
	"time"

	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/kraft/raft"
	"github.com/loglab/loglab/engine/protocol"
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
