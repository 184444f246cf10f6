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
	RecordBatchTooLarge          ErrorCode = 18
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
	DeliveryTimeout              ErrorCode = -100 // client-side: delivery.timeout.ms expired (TimeoutException)
	MaxBlockTimeout              ErrorCode = -101 // client-side: max.block.ms passed waiting for metadata (TimeoutException)
)

var names = map[ErrorCode]string{
	None: "NONE", OffsetOutOfRange: "OFFSET_OUT_OF_RANGE", CorruptMessage: "CORRUPT_MESSAGE",
	UnknownTopicOrPartition: "UNKNOWN_TOPIC_OR_PARTITION", LeaderNotAvailable: "LEADER_NOT_AVAILABLE",
	NotLeaderOrFollower: "NOT_LEADER_OR_FOLLOWER", RequestTimedOut: "REQUEST_TIMED_OUT",
	MessageTooLarge: "MESSAGE_TOO_LARGE", RecordBatchTooLarge: "RECORD_BATCH_TOO_LARGE", NetworkException: "NETWORK_EXCEPTION",
	NotEnoughReplicas: "NOT_ENOUGH_REPLICAS", NotEnoughReplicasAfterAppend: "NOT_ENOUGH_REPLICAS_AFTER_APPEND",
	InvalidRequiredAcks: "INVALID_REQUIRED_ACKS", InvalidRecord: "INVALID_RECORD", InvalidRequest: "INVALID_REQUEST",
	FencedLeaderEpoch: "FENCED_LEADER_EPOCH", UnknownLeaderEpoch: "UNKNOWN_LEADER_EPOCH",
	InvalidUpdateVersion: "INVALID_UPDATE_VERSION", StaleBrokerEpoch: "STALE_BROKER_EPOCH",
	OffsetNotAvailable: "OFFSET_NOT_AVAILABLE", DeliveryTimeout: "DELIVERY_TIMEOUT",
	MaxBlockTimeout:             "MAX_BLOCK_TIMEOUT",
	DuplicateBrokerRegistration: "DUPLICATE_BROKER_REGISTRATION",
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
		NotEnoughReplicasAfterAppend, UnknownTopicOrPartition, FencedLeaderEpoch, UnknownLeaderEpoch, CorruptMessage:
		return true
	}
	return false
}
