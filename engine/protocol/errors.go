// Package protocol holds the requests and responses brokers, the
// controller and clients exchange over sim.Network. They mirror Kafka's
// (same fields, same error codes) so that a wire adapter stays thin; they
// travel as Go values, only record batches are bytes.
package protocol

// ErrorCode is Kafka's error code; Name gives Kafka's name for it.
type ErrorCode int16

// Kafka's error codes (org.apache.kafka.common.protocol.Errors).
const (
	None                         ErrorCode = 0
	OffsetOutOfRange             ErrorCode = 1
	CorruptMessage               ErrorCode = 2
	UnknownTopicOrPartition      ErrorCode = 3
	LeaderNotAvailable           ErrorCode = 5
	NotLeaderOrFollower          ErrorCode = 6
	RequestTimedOut              ErrorCode = 7
	MessageTooLarge              ErrorCode = 10
	RecordListTooLarge           ErrorCode = 18 // RecordBatchTooLargeException
	NetworkException             ErrorCode = 13
	NotEnoughReplicas            ErrorCode = 19
	NotEnoughReplicasAfterAppend ErrorCode = 20
	InvalidRequiredAcks          ErrorCode = 21
	InvalidRecord                ErrorCode = 87
	InvalidRequest               ErrorCode = 42
	FencedLeaderEpoch            ErrorCode = 74
	UnknownLeaderEpoch           ErrorCode = 75
	InvalidUpdateVersion         ErrorCode = 96
	StaleBrokerEpoch             ErrorCode = 77
	OffsetNotAvailable           ErrorCode = 78
	DuplicateBrokerRegistration  ErrorCode = 101
	IneligibleReplica            ErrorCode = 107
	// KafkaStorageError: the replica's log directory failed (a write
	// answered ENOSPC or EIO); the partition is offline on that broker.
	KafkaStorageError ErrorCode = 56

	// KRaft's errors.
	NotController         ErrorCode = 41
	InconsistentVoterSet  ErrorCode = 94
	InconsistentClusterID ErrorCode = 104
	PositionOutOfRange    ErrorCode = 99

	// The group coordinator's errors.
	OffsetMetadataTooLarge    ErrorCode = 12
	CoordinatorLoadInProgress ErrorCode = 14
	CoordinatorNotAvailable   ErrorCode = 15
	NotCoordinator            ErrorCode = 16
	IllegalGeneration         ErrorCode = 22
	InconsistentGroupProtocol ErrorCode = 23
	InvalidGroupID            ErrorCode = 24
	UnknownMemberID           ErrorCode = 25
	InvalidSessionTimeout     ErrorCode = 26
	RebalanceInProgress       ErrorCode = 27
	InvalidCommitOffsetSize   ErrorCode = 28
	TopicAlreadyExists        ErrorCode = 36
	InvalidReplicationFactor  ErrorCode = 38
	PolicyViolation           ErrorCode = 44 // a topic a policy refuses (loglab's replica cap, kraft.ErrPolicyViolation)
	NonEmptyGroup             ErrorCode = 68
	GroupIDNotFound           ErrorCode = 69
	MemberIDRequired          ErrorCode = 79
	GroupMaxSizeReached       ErrorCode = 81
	FencedInstanceID          ErrorCode = 82
	UnstableOffsetCommit      ErrorCode = 88
	FencedMemberEpoch         ErrorCode = 110
	UnreleasedInstanceID      ErrorCode = 111
	UnsupportedAssignor       ErrorCode = 112
	StaleMemberEpoch          ErrorCode = 113

	// The idempotent and transactional producer's errors.
	OutOfOrderSequenceNumber     ErrorCode = 45
	DuplicateSequenceNumber      ErrorCode = 46
	InvalidProducerEpoch         ErrorCode = 47
	InvalidTxnState              ErrorCode = 48
	InvalidProducerIDMapping     ErrorCode = 49
	InvalidTransactionTimeout    ErrorCode = 50
	ConcurrentTransactions       ErrorCode = 51
	TransactionCoordinatorFenced ErrorCode = 52
	UnknownProducerID            ErrorCode = 59
	ProducerFenced               ErrorCode = 90
	TransactionalIDNotFound      ErrorCode = 105
	TransactionAbortable         ErrorCode = 120
)

// Client-side failures with no Kafka error code: the Java producer raises
// org.apache.kafka.common.errors.TimeoutException, which never travels on
// the wire. loglab carries them as negative codes so a delivery report has
// one error field; their Name is the exception's, and the report's message
// is Java's (Delivery.Message), so no invented code reaches a learner.
const (
	DeliveryTimeout ErrorCode = -100 // delivery.timeout.ms passed (Sender.sendProducerData expires the batch)
	MaxBlockTimeout ErrorCode = -101 // max.block.ms passed waiting for metadata (KafkaProducer.waitOnMetadata)
	// The transactional producer's client-side exceptions.
	TransactionAborted ErrorCode = -102 // TransactionAbortedException: a batch dropped by abortTransaction
	IllegalState       ErrorCode = -103 // IllegalStateException: a transactional call in the wrong state
	KafkaException     ErrorCode = -104 // KafkaException: the client gave up (e.g. unacknowledged sequences)
)

// TimeoutExceptionClass is the Java class the client-side timeouts raise.
const TimeoutExceptionClass = "org.apache.kafka.common.errors.TimeoutException"

var names = map[ErrorCode]string{
	None: "NONE", OffsetOutOfRange: "OFFSET_OUT_OF_RANGE", CorruptMessage: "CORRUPT_MESSAGE",
	UnknownTopicOrPartition: "UNKNOWN_TOPIC_OR_PARTITION", LeaderNotAvailable: "LEADER_NOT_AVAILABLE",
	NotLeaderOrFollower: "NOT_LEADER_OR_FOLLOWER", RequestTimedOut: "REQUEST_TIMED_OUT",
	MessageTooLarge: "MESSAGE_TOO_LARGE", RecordListTooLarge: "RECORD_LIST_TOO_LARGE", NetworkException: "NETWORK_EXCEPTION",
	NotEnoughReplicas: "NOT_ENOUGH_REPLICAS", NotEnoughReplicasAfterAppend: "NOT_ENOUGH_REPLICAS_AFTER_APPEND",
	InvalidRequiredAcks: "INVALID_REQUIRED_ACKS", InvalidRecord: "INVALID_RECORD", InvalidRequest: "INVALID_REQUEST",
	FencedLeaderEpoch: "FENCED_LEADER_EPOCH", UnknownLeaderEpoch: "UNKNOWN_LEADER_EPOCH",
	InvalidUpdateVersion: "INVALID_UPDATE_VERSION", StaleBrokerEpoch: "STALE_BROKER_EPOCH",
	OffsetNotAvailable: "OFFSET_NOT_AVAILABLE", KafkaStorageError: "KAFKA_STORAGE_ERROR",
	DeliveryTimeout: "TimeoutException", MaxBlockTimeout: "TimeoutException",
	TransactionAborted: "TransactionAbortedException", IllegalState: "IllegalStateException", KafkaException: "KafkaException",
	DuplicateBrokerRegistration: "DUPLICATE_BROKER_REGISTRATION", IneligibleReplica: "INELIGIBLE_REPLICA",
	NotController: "NOT_CONTROLLER", InconsistentVoterSet: "INCONSISTENT_VOTER_SET",
	InconsistentClusterID: "INCONSISTENT_CLUSTER_ID", PositionOutOfRange: "POSITION_OUT_OF_RANGE",
	OffsetMetadataTooLarge: "OFFSET_METADATA_TOO_LARGE", CoordinatorLoadInProgress: "COORDINATOR_LOAD_IN_PROGRESS",
	CoordinatorNotAvailable: "COORDINATOR_NOT_AVAILABLE", NotCoordinator: "NOT_COORDINATOR",
	IllegalGeneration: "ILLEGAL_GENERATION", InconsistentGroupProtocol: "INCONSISTENT_GROUP_PROTOCOL",
	InvalidGroupID: "INVALID_GROUP_ID", UnknownMemberID: "UNKNOWN_MEMBER_ID", InvalidSessionTimeout: "INVALID_SESSION_TIMEOUT",
	RebalanceInProgress: "REBALANCE_IN_PROGRESS", InvalidCommitOffsetSize: "INVALID_COMMIT_OFFSET_SIZE",
	TopicAlreadyExists: "TOPIC_ALREADY_EXISTS", InvalidReplicationFactor: "INVALID_REPLICATION_FACTOR", PolicyViolation: "POLICY_VIOLATION", NonEmptyGroup: "NON_EMPTY_GROUP", GroupIDNotFound: "GROUP_ID_NOT_FOUND",
	MemberIDRequired: "MEMBER_ID_REQUIRED", GroupMaxSizeReached: "GROUP_MAX_SIZE_REACHED", FencedInstanceID: "FENCED_INSTANCE_ID",
	UnstableOffsetCommit: "UNSTABLE_OFFSET_COMMIT", FencedMemberEpoch: "FENCED_MEMBER_EPOCH",
	UnreleasedInstanceID: "UNRELEASED_INSTANCE_ID", UnsupportedAssignor: "UNSUPPORTED_ASSIGNOR", StaleMemberEpoch: "STALE_MEMBER_EPOCH",
	OutOfOrderSequenceNumber: "OUT_OF_ORDER_SEQUENCE_NUMBER", DuplicateSequenceNumber: "DUPLICATE_SEQUENCE_NUMBER",
	InvalidProducerEpoch: "INVALID_PRODUCER_EPOCH", InvalidTxnState: "INVALID_TXN_STATE",
	InvalidProducerIDMapping: "INVALID_PRODUCER_ID_MAPPING", InvalidTransactionTimeout: "INVALID_TRANSACTION_TIMEOUT",
	ConcurrentTransactions: "CONCURRENT_TRANSACTIONS", TransactionCoordinatorFenced: "TRANSACTION_COORDINATOR_FENCED",
	UnknownProducerID: "UNKNOWN_PRODUCER_ID", ProducerFenced: "PRODUCER_FENCED",
	TransactionalIDNotFound: "TRANSACTIONAL_ID_NOT_FOUND", TransactionAbortable: "TRANSACTION_ABORTABLE",
}

// Name is Kafka's name for the code.
func (e ErrorCode) Name() string {
	if n, ok := names[e]; ok {
		return n
	}
	return "UNKNOWN_SERVER_ERROR"
}

func (e ErrorCode) Error() string { return e.Name() }

// Retriable reports whether a client retries after this error, as Kafka's
// RetriableException subclasses are retried.
func (e ErrorCode) Retriable() bool {
	switch e {
	case NotLeaderOrFollower, LeaderNotAvailable, RequestTimedOut, NetworkException, NotEnoughReplicas,
		NotEnoughReplicasAfterAppend, UnknownTopicOrPartition, FencedLeaderEpoch, UnknownLeaderEpoch, CorruptMessage,
		CoordinatorLoadInProgress, CoordinatorNotAvailable, NotCoordinator, ConcurrentTransactions,
		KafkaStorageError: // KafkaStorageException is an InvalidMetadataException
		return true
	}
	return false
}
