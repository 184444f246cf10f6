package view

// Transaction is one transactional id as its transaction coordinator holds
// it: kafka-transactions.sh describe's columns, and where the coordinator
// runs.
type Transaction struct {
	ID string
	// State is the coordinator's state name (Empty, Ongoing,
	// PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort, Dead,
	// PrepareEpochFence); PendingState the transition waiting for its
	// __transaction_state record to commit ("" when none).
	State        string
	PendingState string
	// Error names why the coordinator could not describe the id
	// (COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR, ...); "" when it did.
	Error         string
	ProducerID    int64
	ProducerEpoch int
	TimeoutMs     int64 // transaction.timeout.ms the producer asked for
	// StartMs is when the open transaction began, in virtual milliseconds
	// since the cluster started (as Cluster.NowMs), DurationMs how long it
	// has been open: -1 when none is open. LastUpdateMs is the last
	// transition, on the same clock.
	StartMs      int64
	DurationMs   int64
	LastUpdateMs int64
	Partitions   []string // "T/P", in the coordinator's order
	// Coordinator is the broker the metadata names leader of
	// StatePartition, the id's __transaction_state partition (0: none;
	// StatePartition -1 while the topic does not exist).
	Coordinator    int
	StatePartition int
}
