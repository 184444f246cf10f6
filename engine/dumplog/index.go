package dumplog

import (
	"encoding/binary"
	"hash/crc32"
	"io"

	"github.com/loglab/loglab/engine/record"
)

// Index entry sizes (OffsetIndex and TimeIndex entrySize).
const (
	indexEntrySize     = 8  // 4-byte offset relative to the base offset, 4-byte position
	timeIndexEntrySize = 12 // 8-byte timestamp, 4-byte relative offset
)

// entries reads a file of fixed-size entries a chunk at a time, so a big
// index is never read whole. Like Kafka's read-only index it sees
// size/entrySize entries and ignores a partial one at the end.
type entries struct {
	r         io.ReaderAt
	entrySize int
	n         int64 // entries in the file
	buf       []byte
	first     int64 // index of buf's first entry
}

func newEntries(r io.ReaderAt, size int64, entrySize int) *entries {
	return &entries{r: r, entrySize: entrySize, n: size / int64(entrySize)}
}

// at returns entry i (0 <= i < n).
func (e *entries) at(i int64) ([]byte, error) {
	const perChunk = 8192
	if i < e.first || i >= e.first+int64(len(e.buf)/e.entrySize) {
		count := min(perChunk, e.n-i)
		buf, err := readAt(e.r, i*int64(e.entrySize), int(count)*e.entrySize)
		if err != nil {
			return nil, err
		}
		e.buf, e.first = buf, i
	}
	off := int(i-e.first) * e.entrySize
	return e.buf[off : off+e.entrySize], nil
}

// segmentLog opens the .log of the segment an index belongs to, as
// DumpLogSegments does: same directory, the name's part before its first dot
// plus ".log". It returns nil when there is no way to open it; a failure is
// reported on errOut, where Kafka would die.
func segmentLog(name string, opts Options, errOut *writer) *logFile {
	if opts.Open == nil {
		return nil
	}
	base := baseName(name)
	head := base
	for i := 0; i < len(base); i++ {
		if base[i] == '.' {
			head = base[:i]
			break
		}
	}
	logName := name[:len(name)-len(base)] + head + LogSuffix
	r, size, err := opts.Open(logName)
	if err != nil {
		errOut.printf("Could not check %s against %s: %v\n", name, logName, err)
		return nil
	}
	return &logFile{r: r, size: size}
}

// logFile is a segment read for checking an index.
type logFile struct {
	r    io.ReaderAt
	size int64
}

// lastOffsetAt is the last offset of the batch at position, as dumpIndex
// reads it: fileRecords.slice(position, ...).batches.iterator.next().lastOffset.
// Where Kafka throws (no whole batch there, a corrupt length, a header past
// the end of the file) it returns -1.
func (l *logFile) lastOffsetAt(position int64) (int64, error) {
	if position < 0 || position > l.size {
		return -1, nil
	}
	b, found, _, err := nextBatch(l.r, l.size, position)
	if err != nil || found != scanBatch {
		return -1, err
	}
	return l.lastOffset(b)
}

// lastOffset is a batch's lastOffset: from the v2 header, or a legacy
// entry's offset.
func (l *logFile) lastOffset(b batchAt) (int64, error) {
	if b.magic < record.MagicV2 {
		return b.offset, nil
	}
	if b.pos+record.HeaderSize > l.size {
		return -1, nil
	}
	hdr, err := readAt(l.r, b.pos, record.HeaderSize)
	if err != nil {
		return -1, err
	}
	return parseHeader(hdr).LastOffset(), nil
}

// dumpIndex is DumpLogSegments.dumpIndex:
//
//	if (index.entries == 0) { println(s"$file is empty."); return }
//	for (i <- 0 until index.entries) {
//	  val entry = index.entry(i)
//	  // since it is a sparse file, in the event of a crash there may be many zero entries, stop if we see one
//	  if (entry.offset == index.baseOffset && i > 0) return
//	  ... misMatchesSeq ::= (entry.offset, firstBatchLastOffset) when they differ
//	  if (!verifyOnly) println(s"offset: ${entry.offset} position: ${entry.position}")
//	}
//
// and, from main, on stderr: "Mismatches in :$fileName" and
// "  Index offset: $indexOffset, log offset: $logOffset", newest first.
func dumpIndex(w io.Writer, name string, r io.ReaderAt, size int64, opts Options) error {
	out, errOut := &writer{w: w}, errWriter(w, opts)
	out.printf("Dumping %s\n", name)
	base, err := startOffset(name)
	if err != nil {
		out.printf("Could not dump %s: %v\n", name, err)
		return out.err
	}
	es := newEntries(r, size, indexEntrySize)
	if es.n == 0 {
		out.printf("%s is empty.\n", name)
		return out.err
	}
	log := segmentLog(name, opts, errOut)
	var mismatches [][2]int64
	for i := int64(0); i < es.n && out.err == nil; i++ {
		e, err := es.at(i)
		if err != nil {
			return err
		}
		offset := base + int64(int32(binary.BigEndian.Uint32(e)))
		position := int32(binary.BigEndian.Uint32(e[4:]))
		if offset == base && i > 0 {
			break
		}
		if log != nil {
			last, err := log.lastOffsetAt(int64(position))
			if err != nil {
				return err
			}
			if last != offset {
				mismatches = append(mismatches, [2]int64{offset, last})
			}
		}
		if !opts.VerifyIndexOnly {
			out.printf("offset: %d position: %d\n", offset, position)
		}
	}
	if len(mismatches) > 0 {
		errOut.printf("Mismatches in :%s\n", name)
		for i := len(mismatches) - 1; i >= 0; i-- {
			errOut.printf("  Index offset: %d, log offset: %d\n", mismatches[i][0], mismatches[i][1])
		}
	}
	return firstErr(out.err, errOut.err)
}

// dumpTimeIndex is DumpLogSegments.dumpTimeIndex: per entry, find the first
// batch whose lastOffset >= the entry's offset; report the entry when that
// batch ends elsewhere, when the largest record timestamp in it differs from
// the entry's, and when the timestamps do not increase; print
// "timestamp: T offset: O". The reports are TimeIndexDumpErrors.printErrors'.
func dumpTimeIndex(w io.Writer, name string, r io.ReaderAt, size int64, opts Options) error {
	out, errOut := &writer{w: w}, errWriter(w, opts)
	out.printf("Dumping %s\n", name)
	base, err := startOffset(name)
	if err != nil {
		out.printf("Could not dump %s: %v\n", name, err)
		return out.err
	}
	es := newEntries(r, size, timeIndexEntrySize)
	var finder *batchFinder
	if log := segmentLog(name, opts, errOut); log != nil {
		finder = &batchFinder{log: log, notBelow: -1}
	}
	var mismatches, outOfOrder, notFound [][2]int64
	prev := record.NoTimestamp
	for i := int64(0); i < es.n && out.err == nil; i++ {
		e, err := es.at(i)
		if err != nil {
			return err
		}
		timestamp := int64(binary.BigEndian.Uint64(e))
		offset := base + int64(int32(binary.BigEndian.Uint32(e[8:])))
		if offset == base && i > 0 {
			break
		}
		if finder != nil {
			b, last, ok, err := finder.find(offset)
			switch {
			case err != nil:
				return err
			case !ok:
				notFound = append(notFound, [2]int64{offset, -1})
			case last != offset:
				notFound = append(notFound, [2]int64{offset, last})
			default:
				maxTimestamp, err := finder.maxTimestamp(b)
				if err != nil {
					return err
				}
				if maxTimestamp != timestamp {
					mismatches = append(mismatches, [2]int64{timestamp, maxTimestamp})
				}
				if prev >= timestamp {
					outOfOrder = append(outOfOrder, [2]int64{timestamp, prev})
				}
			}
		}
		if !opts.VerifyIndexOnly {
			out.printf("timestamp: %d offset: %d\n", timestamp, offset)
		}
		prev = timestamp
	}
	if len(mismatches) > 0 {
		errOut.printf("Found timestamp mismatch in :%s\n", name)
		for _, m := range mismatches {
			errOut.printf("  Index timestamp: %d, log timestamp: %d\n", m[0], m[1])
		}
	}
	if len(outOfOrder) > 0 {
		errOut.printf("Found out of order timestamp in :%s\n", name)
		for _, m := range outOfOrder {
			errOut.printf("  Index timestamp: %d, Previously indexed timestamp: %d\n", m[0], m[1])
		}
	}
	if len(notFound) > 0 {
		errOut.printf("The following indexed offsets are not found in the log.\n")
		for _, m := range notFound {
			errOut.printf("Indexed offset: %d, found log offset: %d\n", m[0], m[1])
		}
	}
	return firstErr(out.err, errOut.err)
}

// batchFinder finds, for increasing target offsets, the first batch whose
// lastOffset reaches the target, scanning the segment forward once. Kafka
// starts each search at the offset index's lookup position instead; for a
// consistent index both find the same batch. A target below the previous
// one restarts the scan.
type batchFinder struct {
	log      *logFile
	cursor   int64 // position of the batch the last search found
	prev     int64 // the last target
	notBelow int64 // from cursor, no batch reaches this target or any above; -1 when unknown
}

func (f *batchFinder) find(target int64) (b batchAt, last int64, ok bool, err error) {
	if target < f.prev {
		f.cursor, f.notBelow = 0, -1
	}
	f.prev = target
	if f.notBelow >= 0 && target >= f.notBelow {
		return b, 0, false, nil
	}
	for pos := f.cursor; ; pos += b.size {
		var found scan
		b, found, _, err = nextBatch(f.log.r, f.log.size, pos)
		if err != nil {
			return b, 0, false, err
		}
		if found != scanBatch {
			f.notBelow = target
			return b, 0, false, nil
		}
		if last, err = f.log.lastOffset(b); err != nil {
			return b, 0, false, err
		}
		if last >= target {
			f.cursor = b.pos
			return b, last, true, nil
		}
	}
}

// maxTimestamp is the largest record timestamp in the batch, -1 for none,
// as dumpTimeIndex computes it. A batch whose records cannot be read (Kafka
// dies) or that is over MaxBatchRead counts with its header's maxTimestamp;
// a legacy one with its own timestamp.
func (f *batchFinder) maxTimestamp(b batchAt) (int64, error) {
	hdrLen := int(min(record.HeaderSize, f.log.size-b.pos))
	hdr, err := readAt(f.log.r, b.pos, hdrLen)
	if err != nil {
		return 0, err
	}
	if b.magic < record.MagicV2 {
		if b.magic == 1 {
			return int64(binary.BigEndian.Uint64(hdr[legacyTimestampOffset:])), nil
		}
		return record.NoTimestamp, nil
	}
	if len(hdr) < record.HeaderSize {
		return record.NoTimestamp, nil
	}
	h := parseHeader(hdr)
	if h.RecordCount <= 0 {
		return record.NoTimestamp, nil
	}
	if b.size > maxBatchRead || b.size < record.HeaderSize {
		return h.MaxTimestamp, nil
	}
	raw, err := readAt(f.log.r, b.pos, int(b.size))
	if err != nil {
		return 0, err
	}
	raw[magicOffset] = byte(record.MagicV2)
	binary.BigEndian.PutUint32(raw[crcOffset:], crc32.Checksum(raw[crcFrom:], castagnoli))
	batch, _, err := record.Decode(raw)
	if err != nil {
		return h.MaxTimestamp, nil
	}
	maxTimestamp := record.NoTimestamp
	for _, rec := range batch.Records {
		maxTimestamp = max(maxTimestamp, batch.Timestamp(rec))
	}
	return maxTimestamp, nil
}
