// Package view holds immutable view-models of cluster state. It is the only
// engine package the web components see: plain values, already formatted
// where formatting is a matter of Kafka's conventions, never live pointers
// into the engine.
package view

import "strconv"

// Cluster is everything the lab shows at one instant.
type Cluster struct {
	Exists      bool   // false until a `cluster` command ran
	Brokers     int    // broker count
	Controllers int    // KRaft controller count
	Seed        uint64 // the RNG seed: same seed + commands = same run
	Elapsed     string // virtual time since the cluster started, e.g. "1.5s"
	Topics      []Topic
	Inspector   Inspector
	// The cluster as nodes: brokers, the controller, and the messages
	// between them (the most recent, in flight ones first).
	BrokerNodes    []Broker
	MetadataOffset int64 // the controller's last committed metadata offset
	Clients        []string
	Messages       []Message
	Violations     []string // what the invariant checker reported
	// ControllerNode is the controller's name on the network ("ctl").
	ControllerNode string
	// ClientNodes are the producers and consumers, in creation order
	// (producers first), with their kind.
	ClientNodes []Client
	// Network says which faults are in force ("network healthy" when none),
	// as `show network` prints it; Cut lists the pairs of nodes a network
	// partition separates; CutLinks, the single links `net cut` cut (both
	// ways), sorted.
	Network  string
	Cut      []Link
	CutLinks []Link
	// Checks are the checker's violations as structured values, in the
	// order reported (Violations holds the same as text).
	Checks []Violation

	// Quorum is the KRaft controller quorum, one entry per controller in
	// id order; ActiveController is the raft leader running the controller
	// logic, 0 when no majority runs.
	Quorum           []Controller
	ActiveController int
	// QuorumReplication is what the quorum's leader knows of every voter
	// and observer (kafka-metadata-quorum describe --replication): the
	// leader first, then the other voters, then the observers (brokers);
	// empty while no controller leads.
	QuorumReplication []QuorumReplica
	// MetadataRecords are the newest committed metadata records, oldest
	// first, as `show metadata` prints them.
	MetadataRecords []string

	// Groups are the consumer groups, by group id; NowMs is the virtual
	// time in milliseconds, the right edge of the rebalance timeline.
	Groups []Group
	NowMs  int64

	// Transactions are the transactional ids the coordinators hold, by id.
	Transactions []Transaction
	// SideEffects are what the `eos` loops did outside Kafka, one per
	// input record, in the order the records were first processed (as
	// `show side-effects` lists them).
	SideEffects []SideEffect

	// Metrics are Kafka's metrics now, with what the last command changed;
	// Charts the session's numbers over virtual time (metrics.go).
	Metrics []KafkaMetric
	Charts  Charts
}

// Controller is one KRaft controller as the quorum panel shows it.
type Controller struct {
	ID            int
	Up            bool
	Role          string // leader, follower, candidate; "down" while crashed
	Leader        int    // the leader it knows, 0 for none
	Term          uint64
	LastIndex     uint64
	CommitIndex   uint64
	AppliedIndex  uint64
	SnapshotIndex uint64 // 0: no snapshot yet
	// MetadataEnd is the offset the next metadata record will get, as far
	// as this controller has applied.
	MetadataEnd int64
	// CutFrom lists the controllers a network partition cuts it off from,
	// in id order; Isolated says it reaches no majority (itself counted),
	// so it can neither lead nor elect.
	CutFrom  []int
	Isolated bool
}

// QuorumReplica is one row of the quorum's replication: a voter's or an
// observer's log end offset as of its last fetch from the leader.
type QuorumReplica struct {
	ID           int
	Status       string // Leader, Follower or Observer
	LogEndOffset int64  // -1: not fetched in this epoch
	Lag          int64  // the leader's log end offset minus LogEndOffset
	// LastFetch and LastCaughtUp are virtual times ("1.234s"), "" for never.
	LastFetch, LastCaughtUp string
}

// Client is a producer or consumer node.
type Client struct {
	Name string // its network name, e.g. "p1"
	Kind string // "producer" or "consumer"
	// Down: the client's process crashed (`producer crash`, `consumer
	// crash`) or a consumer was closed; a restart is a new instance under
	// the same name.
	Down bool
	// Producer is the producer's idempotence and transaction state (nil
	// for a consumer).
	Producer *ProducerState
}

// ProducerState is what an idempotent or transactional producer's
// TransactionManager holds, as the producer node draws it.
type ProducerState struct {
	Idempotent      bool   // enable.idempotence
	TransactionalID string // transactional.id, "" for none
	// ProducerID and ProducerEpoch are the id and epoch in use (-1, -1:
	// none yet, or no idempotence).
	ProducerID    int64
	ProducerEpoch int
	// TxnState is the TransactionManager's state (UNINITIALIZED, READY,
	// IN_TRANSACTION, ...); "" without idempotence, when Kafka's producer
	// has no TransactionManager.
	TxnState  string
	Sequences []ProducerSequence // sorted by topic, then partition
}

// ProducerSequence is one partition's numbering under the producer's id.
type ProducerSequence struct {
	TP                string // "T/P"
	NextSequence      int32  // the base sequence of the next new batch
	LastAckedSequence int32  // -1: none acknowledged under this epoch
	InFlight          int    // batches sent with a sequence, not yet complete
}

// Link is an unordered pair of network nodes.
type Link struct{ A, B string }

// Violation is one invariant the checker found broken.
type Violation struct {
	At        string // virtual time, e.g. "14.176s"
	Invariant string // e.g. "acked-record-lost"
	Detail    string
}

// LosesAckedRecord reports whether the violation is an acknowledged
// record gone from the log: the failure Kafka's acks setting is about.
func (v Violation) LosesAckedRecord() bool {
	switch v.Invariant {
	case "acks=1-loss", "acked-record-lost", "unclean-election-loss":
		return true
	}
	return false
}

// Broker is one broker node.
type Broker struct {
	ID             int
	Node           string // its network name, e.g. "b1"
	Alive          bool
	Fenced         bool
	Epoch          int64 // the broker epoch the controller's metadata holds for it
	MetadataOffset int64
	// Registered is false for a broker that runs but has not registered
	// since it (re)started: the metadata still describes its previous run
	// (its epoch, its leaderships) until the controller accepts the new one.
	Registered bool
}

// Message is a request or response on the network.
type Message struct {
	ID        uint64
	From, To  string
	Kind      string
	SentAt    string
	DeliverAt string
	InFlight  bool
	Fate      string // delivered, dropped, lost ("" while in flight)
}

// Replica is one broker's copy of a partition.
type Replica struct {
	Broker int
	Alive  bool
	Leader bool
	InISR  bool
	LEO    int64 // log end offset
	HW     int64 // high watermark as this replica knows it
	Epoch  int
	// Opened is false while a running broker has no replica of the
	// partition open: a restarted broker opens its logs once it has
	// registered and replayed the metadata that assigns them.
	Opened bool
	// Offline: the running broker holds the partition offline, its log
	// failed to open or to take a write (a full or failing disk), as
	// Kafka's OfflineReplicas (its log directory failed).
	Offline bool
}

// Role is what the replica row says the broker is for this partition.
func (r Replica) Role() string {
	switch {
	case !r.Alive:
		return "down"
	case r.Offline:
		return "offline"
	case !r.Opened:
		return "no replica yet"
	case r.Leader:
		return "leader"
	}
	return "follower"
}

// Topic is one topic with its partitions in partition order.
type Topic struct {
	Name string
	// Internal marks Kafka's internal topics (__consumer_offsets): the
	// panel draws only their partitions that hold data.
	Internal          bool
	ReplicationFactor int
	Partitions        []Partition
}

// Partition is one partition's log as the learner sees it.
type Partition struct {
	Topic          string
	Index          int
	LogStartOffset int64
	LogEndOffset   int64
	Leader         int // -1: none
	LeaderEpoch    int
	HighWatermark  int64
	// LastStableOffset is the offset below which every transaction is
	// decided: read_committed consumers read up to it, never past the
	// high watermark.
	LastStableOffset int64
	ISR              []int
	Replicas         []Replica
	// ShownBroker is the broker whose log Records, the offsets and
	// Segments come from: the leader's when it leads, else the first
	// replica that has the log open (0: none). Opening a record asks
	// this broker.
	ShownBroker int
	// Records is the tail of the log, oldest first; Hidden counts the
	// offsets before it that are left out so a long log stays cheap to
	// render (compaction may have emptied some of them).
	Records []Record
	Hidden  int64
	// Lost are acknowledged records the leader no longer holds (a leader
	// change truncated them away, or a different record now sits at their
	// offset), oldest first. Only filled while a live leader is known.
	Lost     []Record
	Segments []Segment
	Config   []string // the topic's log settings as name=value
	// Housekeeping says what retention and the cleaner last did here.
	Housekeeping []string
}

// Segment is one segment file of a partition.
type Segment struct {
	File       string // e.g. 00000000000000000042.log
	BaseOffset int64
	NextOffset int64
	Size       int64
	Active     bool
	Index      []IndexEntry // the sparse offset index
	TimeIndex  int          // number of time index entries
}

// IndexEntry is one sparse index entry: offset -> byte position.
type IndexEntry struct {
	Offset   int64
	Position int64
}

// Name is the lab language's "topic/partition" spelling.
func (p Partition) Name() string { return p.Topic + "/" + strconv.Itoa(p.Index) }

// LeaderState says why the leader the metadata names is not leading: ""
// when its replica leads (or there is no leader), "down" when its broker
// is down, "no replica yet" when the broker restarted and has not opened
// the partition, "not leading yet" when its replica has not yet applied
// the metadata that made it leader. The controller moves the leadership
// only once it fences the broker, broker.session.timeout.ms after the last
// heartbeat of its previous run: until then Kafka's metadata, too, names a
// leader that cannot serve.
func (p Partition) LeaderState() string {
	if p.Leader < 0 {
		return ""
	}
	for _, r := range p.Replicas {
		if r.Broker != p.Leader {
			continue
		}
		switch {
		case !r.Alive:
			return "down"
		case r.Offline:
			return "offline"
		case !r.Opened:
			return "no replica yet"
		case !r.Leader || r.Epoch != p.LeaderEpoch:
			return "not leading yet"
		}
	}
	return ""
}

// Leads lists the partitions broker id leads: the metadata names it and
// its replica leads at that epoch.
func (c Cluster) Leads(id int) []string {
	var out []string
	for _, t := range c.Topics {
		for _, p := range t.Partitions {
			if p.Leader == id && p.LeaderState() == "" {
				out = append(out, p.Name())
			}
		}
	}
	return out
}

// NamedLeader lists the partitions the metadata names broker id leader of
// but that it does not lead (see Partition.LeaderState).
func (c Cluster) NamedLeader(id int) []string {
	var out []string
	for _, t := range c.Topics {
		for _, p := range t.Partitions {
			if p.Leader == id && p.LeaderState() != "" {
				out = append(out, p.Name())
			}
		}
	}
	return out
}

// Record is one record, with key and value as display text.
type Record struct {
	Offset      int64
	Timestamp   int64
	Key         string
	KeyIsNull   bool
	Value       string
	ValueIsNull bool // a tombstone
	Committed   bool // below the high watermark: visible to consumers
	Acked       bool // a producer was told it is written (acks=1 or all)
	// Control is "COMMIT" or "ABORT" for a transaction marker: a control
	// record, never returned to applications, that takes an offset.
	Control string
	// Txn is a transactional record's fate in this log: "open",
	// "committed" or "aborted" ("" outside transactions).
	Txn string
	// ProducerID is the idempotent producer that wrote it (-1: none).
	ProducerID int64
}

// RecordsShown is how many of a partition's newest records a view carries.
const RecordsShown = 20
