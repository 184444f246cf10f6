package txnindex

import (
	"encoding/binary"
	"fmt"
)

// The layout of one entry, as AbortedTxn.java's *_OFFSET/*_SIZE constants
// lay it out: big-endian, no length prefix, no checksum, fixed size, so an
// entry's position in the file is its index times EntrySize.
const (
	versionOffset          = 0
	producerIDOffset       = versionOffset + 2
	firstOffsetOffset      = producerIDOffset + 8
	lastOffsetOffset       = firstOffsetOffset + 8
	lastStableOffsetOffset = lastOffsetOffset + 8
	// EntrySize is AbortedTxn.TOTAL_SIZE: 2 + 8 + 8 + 8 + 8 = 34 bytes.
	EntrySize = lastStableOffsetOffset + 8
)

// CurrentVersion is AbortedTxn.CURRENT_VERSION; Kafka has only ever
// written version 0.
const CurrentVersion int16 = 0

// AbortedTxn is one entry of a .txnindex file: a transaction whose ABORT
// marker was written in the segment, the offsets of its first and last
// data record, and the partition's last stable offset when it was aborted.
type AbortedTxn struct {
	// Version is the int16 on disk. Kafka reads it back with a one-byte
	// get (see KafkaVersion), so only its high byte matters to Kafka.
	Version          int16
	ProducerID       int64
	FirstOffset      int64
	LastOffset       int64
	LastStableOffset int64
}

// NewAbortedTxn mirrors the AbortedTxn(producerId, firstOffset, lastOffset,
// lastStableOffset) constructor: always the current version.
func NewAbortedTxn(producerID, firstOffset, lastOffset, lastStableOffset int64) AbortedTxn {
	return AbortedTxn{CurrentVersion, producerID, firstOffset, lastOffset, lastStableOffset}
}

// KafkaVersion is what AbortedTxn.version() returns: Kafka writes the
// version with putShort but reads it with buffer.get(VERSION_OFFSET), a
// single signed byte widened to short. So bytes 00 01 read as version 0,
// 01 00 as version 1, and FF xx as version -1 (which passes Kafka's
// "version > CURRENT_VERSION" check).
func (t AbortedTxn) KafkaVersion() int16 {
	return int16(int8(uint16(t.Version) >> 8))
}

// AppendTo appends the 34 bytes of the entry, as AbortedTxn.toByteBuffer.
func (t AbortedTxn) AppendTo(b []byte) []byte {
	b = binary.BigEndian.AppendUint16(b, uint16(t.Version))
	b = binary.BigEndian.AppendUint64(b, uint64(t.ProducerID))
	b = binary.BigEndian.AppendUint64(b, uint64(t.FirstOffset))
	b = binary.BigEndian.AppendUint64(b, uint64(t.LastOffset))
	return binary.BigEndian.AppendUint64(b, uint64(t.LastStableOffset))
}

// decodeEntry reads one entry from exactly EntrySize bytes; it does not
// check the version (the index's iterator does, with the file's name).
func decodeEntry(b []byte) AbortedTxn {
	return AbortedTxn{
		Version:          int16(binary.BigEndian.Uint16(b[versionOffset:])),
		ProducerID:       int64(binary.BigEndian.Uint64(b[producerIDOffset:])),
		FirstOffset:      int64(binary.BigEndian.Uint64(b[firstOffsetOffset:])),
		LastOffset:       int64(binary.BigEndian.Uint64(b[lastOffsetOffset:])),
		LastStableOffset: int64(binary.BigEndian.Uint64(b[lastStableOffsetOffset:])),
	}
}

// String is AbortedTxn.toString, which Kafka's exceptions embed.
func (t AbortedTxn) String() string {
	return fmt.Sprintf("AbortedTxn(version=%d, producerId=%d, firstOffset=%d, lastOffset=%d, lastStableOffset=%d)",
		t.KafkaVersion(), t.ProducerID, t.FirstOffset, t.LastOffset, t.LastStableOffset)
}

// AbortedTransaction is FetchResponseData.AbortedTransaction: all a
// READ_COMMITTED consumer is told about an aborted transaction.
type AbortedTransaction struct {
	ProducerID  int64
	FirstOffset int64
}

// AsAbortedTransaction mirrors AbortedTxn.asAbortedTransaction: the fetch
// response carries only the producer id and first offset; the consumer
// drops that producer's batches from FirstOffset until it meets the
// producer's ABORT marker.
func (t AbortedTxn) AsAbortedTransaction() AbortedTransaction {
	return AbortedTransaction{t.ProducerID, t.FirstOffset}
}
