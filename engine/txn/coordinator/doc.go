// Package coordinator is Kafka 4.x's transaction coordinator for one
// partition of __transaction_state (TransactionCoordinator,
// TransactionStateManager and TransactionMetadata, core/src/main/scala/
// kafka/coordinator/transaction), as a pure, deterministic state machine
// with transaction.version=2 (KIP-890 part 2): no I/O, no clock, no
// goroutines. The broker leading the partition feeds it requests, the
// virtual time, the outcome of its log writes and of its marker requests;
// every call returns a Result: records to append to __transaction_state,
// replies to send, WriteTxnMarkers to send and trace lines.
//
// A state change is never current before its record commits: a request
// prepares a transition (TransactionMetadata.prepareTransitionTo, the
// pending state), the broker appends the Write and calls WriteCompleted
// once the high watermark passed it (or failed), and only then does the
// transition complete (completeTransitionTo) and the reply go out. While a
// transition is pending, other requests for that transactional id get
// CONCURRENT_TRANSACTIONS, as in Kafka.
//
// Producer ids come from the broker's producer id manager, which answers
// asynchronously in loglab: a request that needs a new id (a new
// transactional id, an exhausted epoch) returns Result.NeedProducerID and
// changes nothing; the broker asks for an id and calls the request again
// with it.
//
// Where loglab differs from Kafka:
//   - Kafka's coordinator serves every __transaction_state partition its
//     broker leads from one TransactionStateManager; here one Partition
//     value holds one partition (the broker keeps one per partition), with
//     the partition's leader epoch as its coordinator epoch.
//   - The marker channel (grouping by leader, retries) is the broker's;
//     this package only says which markers a transaction needs and takes
//     each partition's completion (MarkerWritten), as
//     TransactionMarkerRequestCompletionHandler does.
//   - KIP-939's keepPreparedTxn (two-phase commit with an external
//     coordinator) and transaction version 0/1 clients are not modelled:
//     every client runs transaction version 2.
//   - An illegal transition (Kafka's IllegalStateException, a bug) is
//     answered COORDINATOR_NOT_AVAILABLE with a trace line instead of
//     killing the request handler thread.
package coordinator
