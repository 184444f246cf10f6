package dumplog

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"strconv"
	"strings"

	"github.com/loglab/loglab/engine/producerstate"
)

// dumpProducerSnapshot is DumpLogSegments.dumpProducerIdSnapshot: a line
// per producer of a .snapshot file (ProducerStateManager.readSnapshot),
//
//	producerId: 7 producerEpoch: 0 coordinatorEpoch: -1 currentTxnFirstOffset: OptionalLong.empty lastTimestamp: 1700000000015 firstSequence: 10 lastSequence: 11 lastOffset: 4 offsetDelta: 1 timestamp: 1700000000015
//
// currentTxnFirstOffset is Java's OptionalLong ("OptionalLong[12]" while
// a transaction is open). A producer with no batch left (known only from
// a transaction marker) stops after lastTimestamp, with its trailing
// space. A corrupt snapshot is Kafka's CorruptSnapshotException: its
// message goes to the error writer and the dump goes on with the next
// file.
func dumpProducerSnapshot(w io.Writer, name string, r io.ReaderAt, size int64, opts Options) error {
	out, errOut := &writer{w: w}, errWriter(w, opts)
	out.printf("Dumping %s\n", name)
	if size > maxBatchRead {
		errOut.printf("Snapshot failed schema validation: the file is %d bytes, more than loglab reads (%d) (%s)\n", size, maxBatchRead, name)
		return out.err
	}
	data, err := readAt(r, 0, int(size))
	if err != nil {
		return err
	}
	if msg := snapshotCorruption(data); msg != "" {
		errOut.printf("%s (%s)\n", msg, name)
		return out.err
	}
	entries, err := producerstate.DecodeSnapshot(data)
	if err != nil { // snapshotCorruption checks what DecodeSnapshot does
		errOut.printf("%v (%s)\n", err, name)
		return out.err
	}
	var line strings.Builder
	for _, e := range entries {
		line.Reset()
		line.WriteString("producerId: " + strconv.FormatInt(e.ProducerID, 10))
		line.WriteString(" producerEpoch: " + strconv.Itoa(int(e.Epoch)))
		line.WriteString(" coordinatorEpoch: " + strconv.Itoa(int(e.CoordinatorEpoch)))
		line.WriteString(" currentTxnFirstOffset: " + optionalLong(e.CurrentTxnFirstOffset))
		line.WriteString(" lastTimestamp: " + strconv.FormatInt(e.LastTimestamp, 10) + " ")
		if len(e.Batches) > 0 { // batchMetadata.headOption
			b := e.Batches[0]
			fmt.Fprintf(&line, "firstSequence: %d lastSequence: %d lastOffset: %d offsetDelta: %d timestamp: %d",
				b.FirstSeq(), b.LastSeq, b.LastOffset, b.OffsetDelta, b.Timestamp)
		}
		out.printf("%s\n", line.String())
	}
	return out.err
}

// optionalLong is java.util.OptionalLong.toString for an offset, -1 for
// empty.
func optionalLong(v int64) string {
	if v < 0 {
		return "OptionalLong.empty"
	}
	return "OptionalLong[" + strconv.FormatInt(v, 10) + "]"
}

// The producer snapshot's layout (ProducerSnapshot.json, version 1):
// version int16, crc uint32, then the entries as an int32 count and 46
// bytes each.
const (
	snapshotVersionLen = 2
	snapshotCRCEnd     = snapshotVersionLen + 4
	snapshotCountEnd   = snapshotCRCEnd + 4
	snapshotEntryLen   = 8 + 2 + 4 + 8 + 4 + 8 + 4 + 8
)

// snapshotCorruption is the message of the CorruptSnapshotException
// Kafka's ProducerStateManager.readSnapshot throws for data, "" when it
// reads. Kafka checks in this order: the version (read first, then the
// generated ProducerSnapshot reader), the schema, the CRC32C of
// everything after the CRC field. Where Kafka's message would be
// "Snapshot failed schema validation: null" (a BufferUnderflowException,
// which has no message) loglab says where the file ends instead.
func snapshotCorruption(data []byte) string {
	const schema = "Snapshot failed schema validation: "
	short := func(what string) string {
		return fmt.Sprintf("%sthe file ends after %d bytes, inside %s", schema, len(data), what)
	}
	if len(data) < snapshotVersionLen {
		return short("the version")
	}
	// Kafka throws the version's exception inside the try that wraps
	// schema errors, so its message carries both prefixes.
	if v := int16(binary.BigEndian.Uint16(data)); v != producerstate.SnapshotVersion {
		return schema + "Snapshot contained an unknown file version " + strconv.Itoa(int(v))
	}
	if len(data) < snapshotCRCEnd {
		return short("the crc")
	}
	if len(data) < snapshotCountEnd {
		return short("the producer entries' count")
	}
	count := int32(binary.BigEndian.Uint32(data[snapshotCRCEnd:]))
	remaining := int64(len(data) - snapshotCountEnd)
	switch {
	case count < 0:
		return schema + "non-nullable field producerEntries was serialized as null"
	case int64(count) > remaining:
		// The generated reader compares the count with the bytes left.
		return fmt.Sprintf("%sTried to allocate a collection of size %d, but there are only %d bytes remaining.", schema, count, remaining)
	case int64(count)*snapshotEntryLen > remaining:
		return short(fmt.Sprintf("producer entry %d of %d (each is %d bytes)", remaining/snapshotEntryLen, count, snapshotEntryLen))
	}
	// The CRC32C covers the file from the entries' count on
	// (PRODUCER_ENTRIES_OFFSET), trailing bytes included.
	stored := binary.BigEndian.Uint32(data[snapshotVersionLen:])
	if computed := crc32.Checksum(data[snapshotCRCEnd:], castagnoli); computed != stored {
		return fmt.Sprintf("Snapshot is corrupt (CRC is no longer valid). Stored crc: %d. Computed crc: %d", stored, computed)
	}
	return ""
}
