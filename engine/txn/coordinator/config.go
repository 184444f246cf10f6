package coordinator

// Config is the transaction coordinator's broker settings, Kafka's keys
// and defaults (TransactionStateManagerConfig, TransactionLogConfig).
type Config struct {
	// TransactionMaxTimeoutMs is transaction.max.timeout.ms (900000): an
	// InitProducerId asking for a longer transaction.timeout.ms gets
	// INVALID_TRANSACTION_TIMEOUT.
	TransactionMaxTimeoutMs int32
	// TransactionalIDExpirationMs is transactional.id.expiration.ms
	// (604800000, 7 days): an id with no transaction in flight that was
	// not updated for that long is removed (Dead, then a tombstone).
	TransactionalIDExpirationMs int64
	// TransactionVersion is the cluster's transaction.version feature
	// level (2 for a new Kafka 4.x cluster); it picks the record value
	// version (TransactionVersion.transactionLogValueVersion) and is the
	// version of the coordinator's own aborts (timeouts, fencing).
	TransactionVersion int16
}

// DefaultConfig is Kafka 4.x's defaults.
func DefaultConfig() Config {
	return Config{TransactionMaxTimeoutMs: 900000, TransactionalIDExpirationMs: 604800000, TransactionVersion: 2}
}
