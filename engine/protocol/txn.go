package protocol

// The idempotent and transactional producer's requests and responses,
// Kafka's names and fields: InitProducerId v5, AddPartitionsToTxn v5 (the
// broker-to-coordinator form of transaction version 2), TxnOffsetCommit v4,
// EndTxn v5, WriteTxnMarkers v1 and the controller's AllocateProducerIds v0.
// Kafka's requests batch several transactions or groups; each of these
// carries one. loglab's cluster runs transaction.version=2, Kafka 4.x's
// default for a new cluster (KIP-890 part 2): the client never sends
// AddPartitionsToTxn or AddOffsetsToTxn; the partition leader adds a
// partition when the first transactional batch arrives, the group
// coordinator adds __consumer_offsets when TxnOffsetCommit arrives, and
// every EndTxn bumps the producer epoch.

// NoProducerID and NoProducerEpoch are the "none" values of the wire.
const (
	NoProducerID    int64 = -1
	NoProducerEpoch int16 = -1
)

// Isolation levels of a fetch (IsolationLevel.id).
const (
	ReadUncommitted int8 = 0
	ReadCommitted   int8 = 1
)

// InitProducerIdRequest asks for a producer id. Without a transactional id
// any broker answers from its block of ids (an idempotent producer); with
// one, the transaction coordinator of that id answers, bumping the epoch
// and fencing (aborting) the previous instance's transaction. ProducerID
// and ProducerEpoch are the caller's current ones (KIP-360: an existing
// producer asks for an epoch bump), -1 for a new producer.
type InitProducerIdRequest struct {
	CorrelationID        int64
	TransactionalID      string // "": idempotent only
	TransactionTimeoutMs int32
	ProducerID           int64
	ProducerEpoch        int16
}

// InitProducerIdResponse answers it.
type InitProducerIdResponse struct {
	CorrelationID int64
	Error         ErrorCode
	ProducerID    int64
	ProducerEpoch int16
}

// AddPartitionsToTxnRequest is the partition leader (or the group
// coordinator, for __consumer_offsets) asking the transaction coordinator
// to add a partition to the producer's transaction before it appends the
// transaction's first batch there (KIP-890's verification). VerifyOnly is
// KIP-890 part 1's form: only check that the partition is already in the
// transaction (transaction version 1); loglab's brokers send VerifyOnly
// false (version 2: add it, starting the transaction if none is open).
type AddPartitionsToTxnRequest struct {
	CorrelationID   int64
	TransactionalID string
	ProducerID      int64
	ProducerEpoch   int16
	Partitions      []TopicPartition
	VerifyOnly      bool
}

// AddPartitionsToTxnResult is one partition's outcome.
type AddPartitionsToTxnResult struct {
	TP    TopicPartition
	Error ErrorCode
}

// AddPartitionsToTxnResponse answers it, partition by partition. Error is
// the top-level error (NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS, ...);
// when it is set, Results is empty.
type AddPartitionsToTxnResponse struct {
	CorrelationID   int64
	TransactionalID string
	Error           ErrorCode
	Results         []AddPartitionsToTxnResult
}

// TxnOffsetCommitRequest commits a consumer group's offsets inside a
// transaction (sendOffsetsToTransaction): they become visible only with
// the transaction's COMMIT marker in __consumer_offsets. The generation,
// member id and instance id are the consumer's group metadata, checked
// like an OffsetCommit's so a zombie consumer's transaction fails (KIP-447).
type TxnOffsetCommitRequest struct {
	CorrelationID   int64
	TransactionalID string
	GroupID         string
	ProducerID      int64
	ProducerEpoch   int16
	GenerationID    int32 // -1: not checked
	MemberID        string
	GroupInstanceID string
	Offsets         []OffsetCommitPartition
}

// TxnOffsetCommitResponse answers it, partition by partition.
type TxnOffsetCommitResponse struct {
	CorrelationID int64
	Partitions    []OffsetCommitPartitionResponse
}

// EndTxnRequest commits (Committed) or aborts the producer's transaction.
type EndTxnRequest struct {
	CorrelationID   int64
	TransactionalID string
	ProducerID      int64
	ProducerEpoch   int16
	Committed       bool
}

// EndTxnResponse answers it. With transaction version 2 it carries the
// bumped epoch (and a new producer id when the epoch ran out) the
// producer uses for its next transaction.
type EndTxnResponse struct {
	CorrelationID int64
	Error         ErrorCode
	ProducerID    int64
	ProducerEpoch int16
}

// WriteTxnMarkersRequest is the transaction coordinator asking a partition
// leader to append a COMMIT or ABORT control batch to each listed
// partition (all led by that broker) for one producer.
type WriteTxnMarkersRequest struct {
	CorrelationID      int64
	ProducerID         int64
	ProducerEpoch      int16
	Committed          bool // TransactionResult: COMMIT or ABORT
	Partitions         []TopicPartition
	CoordinatorEpoch   int32
	TransactionVersion int8
}

// WriteTxnMarkersPartitionResult is one partition's outcome.
type WriteTxnMarkersPartitionResult struct {
	TP    TopicPartition
	Error ErrorCode
}

// WriteTxnMarkersResponse answers it once every marker is committed (the
// leader appends them with acks=all) or failed.
type WriteTxnMarkersResponse struct {
	CorrelationID int64
	ProducerID    int64
	Partitions    []WriteTxnMarkersPartitionResult
}

// AllocateProducerIdsRequest is a broker asking the controller for a block
// of producer ids (KIP-730); the grant is a ProducerIds record in
// __cluster_metadata.
type AllocateProducerIdsRequest struct {
	BrokerID    int32
	BrokerEpoch int64
}

// AllocateProducerIdsResponse grants ids [ProducerIDStart,
// ProducerIDStart+ProducerIDLen).
type AllocateProducerIdsResponse struct {
	Error           ErrorCode
	ProducerIDStart int64
	ProducerIDLen   int32
}

// AbortedTransaction is one entry of a fetch response's aborted list: a
// read_committed consumer drops this producer's records from FirstOffset
// up to its ABORT marker.
type AbortedTransaction struct {
	ProducerID  int64
	FirstOffset int64
}

func (InitProducerIdRequest) Kind() string       { return "InitProducerId" }
func (InitProducerIdResponse) Kind() string      { return "InitProducerIdResponse" }
func (AddPartitionsToTxnRequest) Kind() string   { return "AddPartitionsToTxn" }
func (AddPartitionsToTxnResponse) Kind() string  { return "AddPartitionsToTxnResponse" }
func (TxnOffsetCommitRequest) Kind() string      { return "TxnOffsetCommit" }
func (TxnOffsetCommitResponse) Kind() string     { return "TxnOffsetCommitResponse" }
func (EndTxnRequest) Kind() string               { return "EndTxn" }
func (EndTxnResponse) Kind() string              { return "EndTxnResponse" }
func (WriteTxnMarkersRequest) Kind() string      { return "WriteTxnMarkers" }
func (WriteTxnMarkersResponse) Kind() string     { return "WriteTxnMarkersResponse" }
func (AllocateProducerIdsRequest) Kind() string  { return "AllocateProducerIds" }
func (AllocateProducerIdsResponse) Kind() string { return "AllocateProducerIdsResponse" }
