// Package txnindex is Kafka 4.x's aborted-transaction index, the
// .txnindex file next to each log segment, byte for byte: when a
// transaction's ABORT marker is written into a segment, the partition
// appends one entry (producer id, first and last offset of the
// transaction, last stable offset at the abort) to that segment's index;
// a READ_COMMITTED fetch asks the indexes which aborted transactions
// overlap the fetched range and sends them in the FetchResponse so the
// consumer can drop their records.
//
// It mirrors, from apache/kafka's storage module
// (org.apache.kafka.storage.internals.log):
//
//   - AbortedTxn: the 34-byte entry (int16 version, int64 producerId,
//     firstOffset, lastOffset, lastStableOffset, big-endian), toString and
//     asAbortedTransaction.
//   - TransactionIndex: append (lastOffset must strictly increase),
//     truncateTo, reset, allAbortedTxns, collectAbortedTxns with
//     TxnIndexSearchResult's isComplete, sanityCheck, isEmpty; Kafka's
//     exception texts as the error types' messages.
//   - DumpLogSegments.dumpTxnIndex: the "version: V producerId: P
//     firstOffset: F lastOffset: L lastStableOffset: S" lines that
//     kafka-dump-log.sh prints for a .txnindex file.
//
// Kafka's quirks, kept on purpose because learners may meet them:
//
//   - The version is written as an int16 but read back as one signed byte
//     (AbortedTxn.version() is buffer.get, not getShort): bytes 00 01 are
//     version 0, 01 00 is version 1 (refused), FF xx is -1 (accepted).
//   - Only complete entries are read; a trailing partial entry (a torn
//     write) is silently ignored by every query and by sanityCheck, and an
//     append after it lands misaligned.
//   - The version check is lazy: a query that stops before a bad entry
//     (collectAbortedTxns once isComplete) succeeds.
//   - An index opened over existing bytes does not know its last offset,
//     so its first append is not checked; truncateTo that drops nothing
//     leaves the remembered last offset unchanged.
//
// Where loglab differs from Kafka:
//
//   - The index is an in-memory byte slice, not a file: no FileChannel,
//     no lazy file creation, rename, updateParentDir, flush, close or
//     deleteIfExists (so TransactionIndexTest's cases about those are not
//     ported). The "path" is only a name for error texts, where Kafka
//     prints the absolute path.
//   - Decode reports the size of a trailing partial entry
//     (Decoded.TrailingPartialEntry) so the lab can show it; Kafka just
//     ignores those bytes and says nothing.
//   - Errors are returned, never thrown: UnexpectedVersionError (Kafka's
//     KafkaException), NonIncreasingLastOffsetError (IllegalArgumentException),
//     CorruptIndexError (CorruptIndexException). Kafka's IOException paths
//     do not exist here.
//   - The engine's log (engine/log) owns the wiring: it appends an entry
//     when an ABORT marker completes a transaction, walks segments for a
//     fetch (LocalLog.collectAbortedTransactions), rebuilds a recovered
//     segment's index from the replayed producer state and the cleaner's
//     cleaned index (CleanedTransactionMetadata).
package txnindex
