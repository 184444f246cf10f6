package broker

import (
	"time"

	"github.com/loglab/loglab/engine/txn/coordinator"
)

// TransactionStateTopic is the internal topic the transaction coordinator
// keeps its state in.
const TransactionStateTopic = "__transaction_state"

// TxnConfig is the transaction coordinator's broker configuration,
// Kafka's keys and defaults.
type TxnConfig struct {
	StateLogNumPartitions     int32         // transaction.state.log.num.partitions (50)
	StateLogReplicationFactor int16         // transaction.state.log.replication.factor (3)
	StateLogMinISR            int           // transaction.state.log.min.isr (2)
	StateLogSegmentBytes      int64         // transaction.state.log.segment.bytes (100 MiB)
	MaxTimeout                time.Duration // transaction.max.timeout.ms (15 min)
	// AbortTimedOutInterval is
	// transaction.abort.timed.out.transaction.cleanup.interval.ms (10 s).
	AbortTimedOutInterval time.Duration
	// IDExpiration is transactional.id.expiration.ms (7 days), checked
	// every transaction.remove.expired.transaction.cleanup.interval.ms
	// (1 h, RemoveExpiredInterval).
	IDExpiration          time.Duration
	RemoveExpiredInterval time.Duration
	// RequestTimeout is request.timeout.ms (30 s): how long a
	// WriteTxnMarkers or AddPartitionsToTxn waits for its answer. (A
	// coordinator write waits for the high watermark as long as the
	// transaction timeout of the state it writes, as Kafka's.)
	RequestTimeout time.Duration
	// RetryBackoff is retry.backoff.ms (100 ms) of the marker channel and
	// of a failed Complete* write.
	RetryBackoff time.Duration
	// LoadBase and LoadPerRecord are what loading a __transaction_state
	// partition costs in virtual time (no Kafka config); meanwhile the
	// coordinator answers COORDINATOR_LOAD_IN_PROGRESS.
	LoadBase, LoadPerRecord time.Duration
}

// DefaultTxnConfig is Kafka 4.x's defaults, and loglab's load cost (as the
// group coordinator's).
func DefaultTxnConfig() TxnConfig {
	return TxnConfig{StateLogNumPartitions: 50, StateLogReplicationFactor: 3, StateLogMinISR: 2, StateLogSegmentBytes: 100 << 20,
		MaxTimeout: 15 * time.Minute, AbortTimedOutInterval: 10 * time.Second, IDExpiration: 7 * 24 * time.Hour,
		RemoveExpiredInterval: time.Hour, RequestTimeout: 30 * time.Second, RetryBackoff: 100 * time.Millisecond,
		LoadBase: 50 * time.Millisecond, LoadPerRecord: 100 * time.Microsecond}
}

// txnConfig is the broker's, with Kafka's defaults for a zero Config.
func (b *Broker) txnConfig() TxnConfig {
	if b.cfg.Txn.StateLogNumPartitions == 0 {
		return DefaultTxnConfig()
	}
	return b.cfg.Txn
}

// coordinatorConfig is the pure coordinator's view of it.
func (c TxnConfig) coordinatorConfig() coordinator.Config {
	cfg := coordinator.DefaultConfig()
	cfg.TransactionMaxTimeoutMs = int32(c.MaxTimeout.Milliseconds())
	cfg.TransactionalIDExpirationMs = c.IDExpiration.Milliseconds()
	return cfg
}
