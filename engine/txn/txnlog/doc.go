// Package txnlog holds the records a transaction coordinator writes to the
// internal compacted topic __transaction_state, byte for byte as Kafka 4.x
// writes them, so that `show log __transaction_state/N` and the dump-log
// tool show real transaction-state records; and the coordinator's
// transaction states with the transitions Kafka allows between them.
//
// A key is TransactionLogKey (version 0, the transactional id); a value is
// TransactionLogValue, version 0 (classic) or 1 (flexible, KIP-890: adds the
// tagged PreviousProducerId, NextProducerId and ClientTransactionVersion),
// each prefixed by its int16 version as MessageUtil.toVersionPrefixedBytes
// writes them (TransactionLog.keyToBytes / valueToBytes). A null value is a
// tombstone: the transactional id expired and compaction forgets it. The
// schemas are Kafka's transaction-coordinator/src/main/resources/common/
// message/TransactionLog{Key,Value}.json (apache/kafka 1eb7644349cb; later
// 4.x only adds "about" texts and the coordinator-key/-value apiKey 0, which
// does not change the bytes).
//
// The package is pure: no engine wiring, no I/O. TransactionState mirrors
// Kafka's TransactionState (ids, names, validPreviousStates,
// isExpirationAllowed); ValidTransition is the check
// TransactionMetadata.prepareTransitionTo makes. PartitionFor is the
// coordinator partition of a transactional id; Format prints a record the
// way `kafka-dump-log.sh --transaction-log-decoder` does
// (TransactionLogMessageParser over TransactionCoordinatorRecordSerde).
//
// Where loglab differs from Kafka:
//
//   - Format prints transactionStatus as the state's name
//     ("CompleteCommit"), as Kafka does since KAFKA-20712 (2026). Kafka
//     4.0 up to that fix printed the byte (4); Kafka 3.x's decoder printed
//     a different, non-JSON line ("transaction_metadata::transactionalId=
//     ..." / "producerId:...,state=..."). A status byte that names no
//     state makes loglab print "Error at offset O, skipping. Unknown
//     transaction state id N from the transaction status message"
//     (TransactionState.fromId's text); that Kafka prints exactly this
//     there is inferred, not checked against a run.
//   - Decode does not check the status byte (nor does Kafka's serde);
//     TransactionLog.readTxnRecordValue, which loads the coordinator's
//     cache, throws on an unknown one: the coordinator must check Known.
//   - Unknown tagged fields are skipped when decoding and not written back;
//     Kafka keeps them as unknownTaggedFields. Known tags are read as
//     Kafka's generated reader reads them, without holding them to their
//     declared size.
//   - Reading a number past the end of a record: Kafka's message is null
//     (a BufferUnderflowException), so it prints "due to: null."; loglab
//     prints "due to: java.nio.BufferUnderflowException." instead.
//   - Strings are kept as the bytes on the wire; Kafka decodes them as
//     UTF-8 and replaces invalid bytes by U+FFFD. Format prints them as
//     Kafka would (U+FFFD), but a re-encoded key keeps the original bytes.
//   - TransactionLog.valueToBytes's own rule (state Empty is written with
//     a null partition list, and refuses partitions) belongs to the caller:
//     EncodeValue writes what it is given.
//   - The codec's primitives repeat engine/group/offsets' unexported ones
//     rather than share them: that package was not to be changed here.
package txnlog
