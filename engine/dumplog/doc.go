// Package dumplog prints segment files the way Kafka's kafka-dump-log.sh
// (kafka.tools.DumpLogSegments) does, so that a learner can put loglab's
// output next to Kafka's and see the same lines. It reads RecordBatch v2
// through engine/record and is pure: the caller hands it an io.ReaderAt and
// a size, and it neither opens files nor reads clocks.
//
// What it prints, per file (DumpLogSegments.scala, apache/kafka trunk at
// 1eb7644349cb, Kafka 4.0 development; the format has been stable since 2.x):
//
//	Dumping 00000000000000000000.log
//	Log starting offset: 0
//	baseOffset: 0 lastOffset: 1 count: 2 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 0 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: 1700000000001 size: 86 magic: 2 compresscodec: none crc: 1234 isvalid: true
//	| offset: 0 CreateTime: 1700000000000 keySize: 1 valueSize: 5 sequence: -1 headerKeys: [] key: k payload: hello
//	Found 7 invalid bytes at the end of 00000000000000000000.log
//
// Record lines appear with deep iteration, which --print-data-log implies;
// key and payload only with --print-data-log, and only when not null. An
// offset index prints "offset: N position: P" lines, a time index
// "timestamp: T offset: O" lines, a producer state .snapshot a line per
// producer (producer_snapshot.go) and a .txnindex a line per aborted
// transaction (txn_index.go).
//
// Where loglab deliberately differs from Kafka:
//
//   - Kafka crashes with a stack trace on some corruption (a batch length
//     below 14, a batch too short for its header, records that do not parse,
//     an unknown codec or control record that does not parse, an index
//     entry pointing past the log). loglab prints one line saying what it
//     found instead and goes on where it safely can; those lines are
//     loglab's own words, except the batch-length one, which is the text of
//     Kafka's CorruptRecordException. Records that do not parse are
//     reported as one line for the batch: Kafka would print the records
//     before the bad one and then die.
//   - The reports Kafka collects for all files and prints to stderr at the
//     very end (index mismatches, time index errors, non-consecutive
//     offsets, "Ignoring unknown file") go to Options.Err right after the
//     file they belong to, and name the file as it was given, not by its
//     absolute path. Their lines and their order are Kafka's, including the
//     newest-first order of the index mismatches and non-consecutive offsets
//     (Scala prepends to a List).
//   - An index is checked against its segment only when Options.Open can
//     open the .log next to it (Kafka then dies instead). The time index
//     check scans the segment forward instead of starting at the offset
//     index's lookup position; for a consistent offset index both find the
//     same batch.
//   - Message formats v0 and v1 (magic 0 and 1) get their batch line, but
//     their records are not shown; loglab speaks RecordBatch v2 only.
//   - KRaft control records (LEADER_CHANGE, SNAPSHOT_HEADER, SNAPSHOT_FOOTER,
//     KRAFT_VERSION, KRAFT_VOTERS) print as "controlType: NAME(id)"; Kafka
//     prints the snapshot and KRaft ones as JSON. The decoder for the
//     metadata log (--cluster-metadata-decoder and friends),
//     --key/value-decoder-class, --skip-record-metadata, --max-bytes,
//     --max-message-size and --index-sanity-check are not implemented, nor
//     are KRaft .checkpoint files: they get a "not supported yet" line.
//     --offsets-decoder and --transaction-log-decoder are.
//   - A corrupt producer .snapshot gets Kafka's CorruptSnapshotException
//     message on Options.Err, followed by the file's name in parentheses;
//     where Kafka's message would end in "null" (its reader ran out of
//     bytes) loglab says where the file ends instead. A .txnindex entry
//     with an unknown version is reported there too (Kafka dies with it),
//     and so are bytes after its last whole entry (Kafka ignores them).
//     Files over MaxBatchRead bytes are not read.
//   - Batches over MaxBatchRead bytes get their batch line (the CRC is
//     checked in chunks) but not their records, so a hostile length cannot
//     make the dump allocate the whole file; Kafka reads any batch whole.
//   - Keys and payloads are decoded as Java's new String(bytes, UTF_8)
//     does, replacing malformed UTF-8 with U+FFFD by the JDK's rules;
//     header keys likewise.
package dumplog
