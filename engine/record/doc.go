// Package record is Kafka's RecordBatch v2 (magic 2) codec, byte for byte:
// what producers send, what brokers append to segment files and what
// consumers fetch. A batch we encode is one Kafka can read, and the other way
// round (DefaultRecordBatch.java and DefaultRecord.java in Kafka's clients).
//
// A batch on the wire, big-endian:
//
//	offset  size  field
//	     0     8  baseOffset
//	     8     4  batchLength            bytes after this field
//	    12     4  partitionLeaderEpoch   outside the CRC: the leader stamps it
//	    16     1  magic                  2
//	    17     4  crc                    CRC-32C of attributes..end
//	    21     2  attributes             compression, timestampType, ...
//	    23     4  lastOffsetDelta
//	    27     8  baseTimestamp
//	    35     8  maxTimestamp
//	    43     8  producerId
//	    51     2  producerEpoch
//	    53     4  baseSequence
//	    57     4  recordCount            stays outside the compressed part
//	    61     …  records                compressed as a whole when compressed
//
// and each record, with zigzag varints (Kafka's ByteUtils):
//
//	length varint, attributes int8, timestampDelta varlong, offsetDelta varint,
//	keyLength varint (-1 = null), key, valueLength varint (-1 = null), value,
//	headerCount varint, then per header: keyLength varint, key,
//	valueLength varint (-1 = null), value
//
// The package is pure: it reads no clock and does no I/O, so the engine stays
// deterministic. Compressed output is deterministic too, but it is not the
// same bytes as the Java client's (a different compressor implementation);
// only the framing matches.
package record
