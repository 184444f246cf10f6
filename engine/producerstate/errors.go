package producerstate

// Error is a Kafka error the producer state answers, with Kafka's name and
// code (org.apache.kafka.common.protocol.Errors). The engine's protocol
// package does not know these codes yet; the integration maps them there.
type Error struct {
	Code int16
	Name string
}

func (e Error) Error() string { return e.Name }

// Kafka's errors for producer state (Errors.java).
var (
	// OutOfOrderSequenceNumber: the batch's first sequence does not follow
	// the last one the leader kept for this producer and epoch.
	OutOfOrderSequenceNumber = Error{45, "OUT_OF_ORDER_SEQUENCE_NUMBER"}
	// InvalidProducerEpoch: the batch's epoch is older than the leader's
	// (InvalidProducerEpochException, answered to produce since 2.7).
	InvalidProducerEpoch = Error{47, "INVALID_PRODUCER_EPOCH"}
	// InvalidTxnState: a non-transactional batch while the producer's
	// transaction is open on this partition.
	InvalidTxnState = Error{48, "INVALID_TXN_STATE"}
	// TransactionCoordinatorFenced: a marker from an older coordinator epoch.
	TransactionCoordinatorFenced = Error{52, "TRANSACTION_COORDINATOR_FENCED"}
	// UnknownProducerID is never answered by this package (see the package
	// doc: KIP-360 removed it from the broker's produce path).
	UnknownProducerID = Error{59, "UNKNOWN_PRODUCER_ID"}
	// ProducerFenced is the transaction coordinator's answer to a zombie,
	// not the partition leader's (see the package doc).
	ProducerFenced = Error{90, "PRODUCER_FENCED"}
)
