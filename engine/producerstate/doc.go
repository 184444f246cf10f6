// Package producerstate is the partition leader's memory of idempotent and
// transactional producers: Kafka 4.x's ProducerStateManager,
// ProducerAppendInfo, ProducerStateEntry and BatchMetadata
// (storage/src/main/java/org/apache/kafka/storage/internals/log), as a
// deterministic pure state machine with no files and no clock of its own
// (callers pass the virtual time in milliseconds).
//
// What it mirrors:
//   - per producer id: the epoch, the metadata of the last 5 batches
//     (NumBatchesToRetain), the coordinator epoch of the last marker and the
//     first offset of the ongoing transaction (ProducerStateEntry);
//   - the append check of a data batch (UnifiedLog's duplicate lookup through
//     ProducerStateEntry.findDuplicateBatch, then ProducerAppendInfo's
//     checkProducerEpoch and checkSequence), with Kafka's answers: a duplicate
//     is acknowledged with the original batch's offsets, INVALID_PRODUCER_EPOCH,
//     OUT_OF_ORDER_SEQUENCE_NUMBER, INVALID_TXN_STATE; an end-transaction marker
//     (appendEndTxnMarker) with TRANSACTION_COORDINATOR_FENCED;
//   - the sequence wrap from Int32 max to 0, and a new epoch restarting at 0;
//   - the REPLICATION origin (followers and log recovery) that skips the
//     sequence check and only warns on an old epoch, which is how the state is
//     rebuilt from the log (Replay);
//   - expiration by producer.id.expiration.ms (86400000), never while a
//     transaction is open (isProducerExpired);
//   - the .snapshot file (version 1, CRC32C over everything after the CRC,
//     one 46-byte entry per producer) with Kafka's corrupt-snapshot checks.
//
// What differs (and why):
//   - UNKNOWN_PRODUCER_ID is never answered. Kafka's broker stopped answering
//     it to produce requests in 2.5 (KIP-360): ProducerAppendInfo accepts any
//     sequence from a producer it has no state for. The error is defined here
//     only so callers can name it.
//   - PRODUCER_FENCED is the transaction coordinator's answer (InitProducerId,
//     EndTxn, ...), not the partition leader's: since 2.7 a data batch with an
//     old epoch gets INVALID_PRODUCER_EPOCH. The name is defined for the
//     coordinator's use.
//   - KIP-890's verification state (VerificationStateEntry, the "expected
//     sequence 0 for a transactions v2 producer with no state" rule) is not
//     modelled: there is no AddPartitionsToTxn verification yet. Kafka 4.x
//     (transaction.partition.verification.enable=true) also refuses a
//     transactional client batch that starts a transaction the coordinator
//     has not verified for this partition (INVALID_TXN_STATE); callers must
//     add that check when the coordinator exists.
//   - A client may not write a control batch (LogValidator refuses it
//     earlier); this package trusts the caller to pass markers only with the
//     Coordinator or Replication origin.
//   - One batch per call; Kafka validates every batch of a produce request
//     against a scratch copy and applies them together. Check never mutates
//     and Append applies one batch, which is the same for one batch.
//   - Snapshot entries are written sorted by producer id (Kafka writes its
//     HashMap's order) so the same state always gives the same bytes.
//   - Snapshots, LSO bookkeeping (ongoing/unreplicated transactions, the
//     first unstable offset) and truncation are left to the caller; this
//     package exposes the first undecided offset only.
package producerstate
