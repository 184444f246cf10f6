// Package offsets holds the records a group coordinator writes to the
// internal compacted topic __consumer_offsets, byte for byte as Kafka 4.x
// writes them, so that `show log __consumer_offsets/N` and the dump-log tool
// show real offset-commit and group-metadata records.
//
// A record's key starts with an int16 that names the record type (Kafka
// calls it the key's version: 0 and 1 are OffsetCommitKey, 2 is
// GroupMetadataKey, 3 ConsumerGroupMetadataKey, ...); the value starts with
// its own int16 schema version. A null value is a tombstone: compaction
// then forgets the key (an offset deleted, a group deleted). The schemas are
// Kafka's group-coordinator/src/main/resources/common/message/*.json
// (apache/kafka trunk at 1eb7644349cb, Kafka 4.0 development), serialised by
// CoordinatorRecordSerde with MessageUtil.toVersionPrefixedBytes.
//
// The package is pure: no engine wiring, no I/O. The coordinator partition of
// a group is PartitionFor; Format prints a record the way
// `kafka-dump-log.sh --offsets-decoder` does.
//
// Where loglab differs from Kafka:
//
//   - Known: the classic records (types 0-2) and the KIP-848 records of
//     types 3 and 5-8. ConsumerGroupPartitionMetadata (4, the subscribed
//     topics' metadata, dropped again in Kafka 4.1) and the share-group
//     records (9-15) decode to an UnknownTypeError, which Format prints as
//     Kafka prints a type it does not know ("Unknown record type N at
//     offset O, skipping."); Kafka 4.0 decodes them.
//   - Tagged fields that loglab does not know are skipped when decoding and
//     not written back; Kafka keeps them as unknownTaggedFields. Kafka 4.0
//     writes no tagged fields in these records.
//   - Reading a number past the end of a record: Kafka's message is null
//     (a BufferUnderflowException), so it prints "due to: null."; loglab
//     prints "due to: java.nio.BufferUnderflowException." instead.
//   - Strings are kept as the bytes on the wire; Kafka decodes them as
//     UTF-8 and so replaces invalid bytes by U+FFFD. Format prints them as
//     Kafka would (U+FFFD), but a re-encoded key keeps the original bytes.
package offsets
