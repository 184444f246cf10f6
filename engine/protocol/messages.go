package protocol

// TopicPartition names a partition.
type TopicPartition struct {
	Topic     string
	Partition int32
}

// ProduceRequest carries one batch for one partition (Kafka's request can
// carry many; loglab's producer sends one request per partition batch).
type ProduceRequest struct {
	CorrelationID int64
	Acks          int16 // 0, 1 or -1 (all)
	TimeoutMs     int32
	TP            TopicPartition
	Records       []byte // one RecordBatch v2
	// TransactionalID is the transactional producer's id ("" otherwise):
	// the leader needs it to add the partition to the transaction.
	TransactionalID string
}

// ProduceResponse answers a ProduceRequest (never sent for acks=0).
type ProduceResponse struct {
	CorrelationID  int64
	TP             TopicPartition
	Error          ErrorCode
	BaseOffset     int64
	LogStartOffset int64
}

// FetchRequest fetches from one partition, for a follower (ReplicaID >= 0)
// or a consumer (ReplicaID = -1).
type FetchRequest struct {
	CorrelationID      int64
	ReplicaID          int32
	TP                 TopicPartition
	FetchOffset        int64
	CurrentLeaderEpoch int32 // -1: not checked
	LastFetchedEpoch   int32 // -1: unknown; lets the leader detect divergence (KIP-320/595)
	MaxBytes           int32
	MinBytes           int32
	MaxWaitMs          int32
	// IsolationLevel: ReadUncommitted (the default) reads up to the high
	// watermark, ReadCommitted up to the last stable offset. Followers
	// read uncommitted.
	IsolationLevel int8
}

// EpochEndOffset is the diverging epoch a leader reports when a follower's
// log has gone where the leader's has not: truncate to EndOffset.
type EpochEndOffset struct {
	Epoch     int32
	EndOffset int64
}

// FetchResponse answers a FetchRequest.
type FetchResponse struct {
	CorrelationID  int64
	TP             TopicPartition
	Error          ErrorCode
	HighWatermark  int64
	LogStartOffset int64
	LeaderEpoch    int32
	DivergingEpoch *EpochEndOffset
	Records        []byte // whole batches
	// LastStableOffset: the offset below which every transaction is
	// decided; a read_committed fetch gets nothing at or beyond it.
	LastStableOffset int64
	// AbortedTransactions, for a read_committed fetch only: the aborted
	// transactions overlapping the returned records, by first offset.
	AbortedTransactions []AbortedTransaction
}

// MetadataRequest asks a broker who leads what.
type MetadataRequest struct{ CorrelationID int64 }

// PartitionMetadata is one partition's leader and replicas.
type PartitionMetadata struct {
	TP          TopicPartition
	Leader      int32 // -1: none
	LeaderEpoch int32
	Replicas    []int32
	ISR         []int32
}

// MetadataResponse is the broker's view of the cluster.
type MetadataResponse struct {
	CorrelationID int64
	Brokers       []int32
	Partitions    []PartitionMetadata // ordered by topic then partition
}

// ListOffsetsRequest asks for the earliest (-2) or latest (-1) offset.
type ListOffsetsRequest struct {
	CorrelationID int64
	// ReplicaID is Kafka's replica_id: the asking follower's broker id. A
	// follower's "latest" is the leader's log end, a client's the high
	// watermark. Clients leave it 0 (Kafka's consumers send -1): loglab
	// numbers brokers from 1.
	ReplicaID int32
	TP        TopicPartition
	Timestamp int64
	// IsolationLevel: a read_committed client's "latest" is the last
	// stable offset, a read_uncommitted one's the high watermark.
	IsolationLevel int8
}

// ListOffsetsResponse answers it.
type ListOffsetsResponse struct {
	CorrelationID int64
	TP            TopicPartition
	Error         ErrorCode
	Offset        int64
}

// BrokerHeartbeatRequest keeps a broker's session with the controller
// alive and says how far it has applied the metadata log.
type BrokerHeartbeatRequest struct {
	BrokerID       int32
	BrokerEpoch    int64
	MetadataOffset int64
	// Seq numbers the broker's heartbeats; the answer echoes it, as Kafka
	// matches an answer to its request by correlation id, so an answer to
	// a heartbeat the broker gave up on is not taken for the newest one's.
	Seq int64
	// OfflineReplicas are the partitions this broker could not open (Kafka
	// reports whole log directories, OfflineLogDirs): the controller moves
	// their leadership away and never elects this broker for them.
	OfflineReplicas []TopicPartition
	// DamagedReplicas are the partitions whose recovery, at this start,
	// cut data off the log: KIP-966's unclean shutdown, narrowed to the
	// partitions where it actually lost something (see the controller).
	DamagedReplicas []TopicPartition
	// LeaderlessLogEnds are this broker's log end offsets of the hosted
	// partitions that have no leader, for the controller to elect the
	// replica with the most data when the ISR cannot supply one.
	LeaderlessLogEnds []ReplicaLogEnd
}

// ReplicaLogEnd is one replica's log end offset.
type ReplicaLogEnd struct {
	TP     TopicPartition
	LogEnd int64
}

// BrokerHeartbeatResponse carries the metadata records the broker lacks.
type BrokerHeartbeatResponse struct {
	Error   ErrorCode
	Fenced  bool
	Seq     int64 // the request's Seq
	Records []MetadataRecord
	// Snapshot, when set, replaces the broker's image: the records that
	// rebuild the metadata as of SnapshotOffset. The controller sends it
	// when records the broker lacks were compacted into a snapshot.
	Snapshot       []MetadataRecord
	SnapshotOffset int64
}

// BrokerRegistrationRequest is sent by a broker when it starts.
type BrokerRegistrationRequest struct {
	BrokerID      int32
	LogEndOffsets map[TopicPartition]int64 // unused by the controller; for traces
	// Attempt numbers the incarnation's registrations: an answer is for
	// the attempt it echoes, and a broker that sent again takes only the
	// answer to its newest (Kafka's BrokerLifecycleManager has one
	// registration in flight and discards a late answer to one it gave up).
	Attempt int64
	// Incarnation tells one run of the broker from the next (Kafka's
	// IncarnationId, a UUID drawn at start-up). Kafka answers on the
	// request's connection, which dies with the process; here answers are
	// addressed to the broker's node, so the answer carries the
	// incarnation and a restarted broker leaves its predecessor's alone.
	Incarnation int64
}

// BrokerRegistrationResponse gives the broker its epoch.
type BrokerRegistrationResponse struct {
	Error       ErrorCode
	BrokerEpoch int64
	Attempt     int64 // the request's
	Incarnation int64 // the request's
}

// AlterPartitionRequest is a leader asking the controller to change a
// partition's ISR.
type AlterPartitionRequest struct {
	BrokerID       int32
	BrokerEpoch    int64
	TP             TopicPartition
	LeaderEpoch    int32
	PartitionEpoch int32
	NewISR         []int32
	// Proposal numbers the leader's ISR changes: an answer is for the
	// proposal it echoes (Kafka's Partition ignores an answer once its
	// state is no longer the one it proposed).
	Proposal int64
}

// AlterPartitionResponse answers it with the committed state.
type AlterPartitionResponse struct {
	Error          ErrorCode
	TP             TopicPartition
	LeaderEpoch    int32
	PartitionEpoch int32
	ISR            []int32
	Proposal       int64 // the request's
}

// MetadataUpdate pushes newly committed metadata records to a broker.
type MetadataUpdate struct {
	Records []MetadataRecord
}

func (ProduceRequest) Kind() string             { return "Produce" }
func (ProduceResponse) Kind() string            { return "ProduceResponse" }
func (FetchRequest) Kind() string               { return "Fetch" }
func (FetchResponse) Kind() string              { return "FetchResponse" }
func (MetadataRequest) Kind() string            { return "Metadata" }
func (MetadataResponse) Kind() string           { return "MetadataResponse" }
func (ListOffsetsRequest) Kind() string         { return "ListOffsets" }
func (ListOffsetsResponse) Kind() string        { return "ListOffsetsResponse" }
func (BrokerHeartbeatRequest) Kind() string     { return "BrokerHeartbeat" }
func (BrokerHeartbeatResponse) Kind() string    { return "BrokerHeartbeatResponse" }
func (BrokerRegistrationRequest) Kind() string  { return "BrokerRegistration" }
func (BrokerRegistrationResponse) Kind() string { return "BrokerRegistrationResponse" }
func (AlterPartitionRequest) Kind() string      { return "AlterPartition" }
func (AlterPartitionResponse) Kind() string     { return "AlterPartitionResponse" }
func (MetadataUpdate) Kind() string             { return "MetadataUpdate" }
