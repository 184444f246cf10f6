package dumplog

import (
	"errors"
	"fmt"
	"github.com/loglab/loglab/engine/log"
	"io"
	"strconv"
	"strings"
)

// The file suffixes DumpLogSegments dispatches on (UnifiedLog's and
// LogFileUtils' constants).
const (
	LogSuffix       = log.LogSuffix
	IndexSuffix     = log.IndexSuffix
	TimeIndexSuffix = log.TimeIndexSuffix
	TxnIndexSuffix  = ".txnindex"
	// ProducerSnapshotSuffix is a producer state snapshot.
	ProducerSnapshotSuffix = ".snapshot"
	// CheckpointSuffix is a KRaft metadata snapshot (Snapshots.SUFFIX).
	CheckpointSuffix = ".checkpoint"
)

// MaxBatchRead is the largest batch whose records the dump reads into
// memory. Kafka bounds batches by message.max.bytes (about 1 MiB by
// default); a larger one is either configured on purpose or a corrupt length,
// and gets its batch line only.
const MaxBatchRead = 64 << 20

// maxBatchRead is MaxBatchRead, lowered by tests.
var maxBatchRead int64 = MaxBatchRead

// Options are the kafka-dump-log flags loglab supports.
type Options struct {
	// PrintDataLog is --print-data-log: print each record's key and
	// payload. It implies DeepIteration.
	PrintDataLog bool
	// DeepIteration is --deep-iteration: a line per record, without key
	// and payload.
	DeepIteration bool
	// OffsetsDecoder is --offsets-decoder: decode each record's key and
	// value as __consumer_offsets records (engine/group/offsets.Format).
	// It implies PrintDataLog, as Kafka's decoder options do.
	OffsetsDecoder bool
	// TransactionLogDecoder is --transaction-log-decoder: decode each
	// record's key and value as __transaction_state records
	// (engine/txn/txnlog.Format). It implies PrintDataLog; with
	// OffsetsDecoder too, OffsetsDecoder wins, as in Kafka's messageParser.
	TransactionLogDecoder bool
	// VerifyIndexOnly is --verify-index-only: check an index against its
	// segment without printing its entries.
	VerifyIndexOnly bool
	// Err receives what Kafka prints to stderr: index and time index
	// errors, non-consecutive offsets, unknown files. Nil means the main
	// writer.
	Err io.Writer
	// Open opens a sibling file by its name, the .log next to an .index or
	// .timeindex, so the index can be checked against it as Kafka does.
	// Nil, or an error from it, skips the check.
	Open func(name string) (r io.ReaderAt, size int64, err error)
}

func (o Options) deep() bool {
	return o.DeepIteration || o.PrintDataLog || o.OffsetsDecoder || o.TransactionLogDecoder
}

// File dumps one file, choosing by its suffix as DumpLogSegments does:
// .log, .index, .timeindex, .snapshot (producer state) and .txnindex. name is the file's path as the user gave it;
// the base offset comes from its last element. With printData it prints
// records with their keys and payloads (kafka-dump-log --print-data-log);
// without, batch lines only, which is kafka-dump-log's default.
func File(w io.Writer, name string, r io.ReaderAt, size int64, printData bool) error {
	return Dump(w, name, r, size, Options{PrintDataLog: printData})
}

// Dump is File with all the options.
func Dump(w io.Writer, name string, r io.ReaderAt, size int64, opts Options) error {
	switch suffix(name) {
	case LogSuffix:
		return dumpLog(w, name, r, size, opts)
	case IndexSuffix:
		return dumpIndex(w, name, r, size, opts)
	case TimeIndexSuffix:
		return dumpTimeIndex(w, name, r, size, opts)
	case ProducerSnapshotSuffix:
		return dumpProducerSnapshot(w, name, r, size, opts)
	case TxnIndexSuffix:
		return dumpTxnIndex(w, name, r, size, opts)
	case CheckpointSuffix:
		out := &writer{w: w}
		out.printf("Dumping %s\n", name)
		out.printf("%s: dumping %s files is not supported yet\n", name, suffix(name))
		return out.err
	default:
		out := &writer{w: w}
		out.printf("Dumping %s\n", name)
		errOut := errWriter(w, opts)
		errOut.printf("Ignoring unknown file %s\n", name)
		return errors.Join(out.err, errOut.err)
	}
}

// Log dumps a .log segment: the "Dumping" and "Log starting offset" lines,
// a line per batch and, with printData, a line per record with its key and
// payload. Corruption is reported in the output; the error is only for
// failures to read r or write w.
func Log(w io.Writer, name string, r io.ReaderAt, size int64, printData bool) error {
	return dumpLog(w, name, r, size, Options{PrintDataLog: printData})
}

// Index dumps an offset index, "offset: N position: P" per entry.
func Index(w io.Writer, name string, r io.ReaderAt, size int64) error {
	return dumpIndex(w, name, r, size, Options{})
}

// TimeIndex dumps a time index, "timestamp: T offset: O" per entry.
func TimeIndex(w io.Writer, name string, r io.ReaderAt, size int64) error {
	return dumpTimeIndex(w, name, r, size, Options{})
}

// baseName is the last element of a slash- or backslash-separated path
// (java.io.File.getName).
func baseName(name string) string {
	return name[strings.LastIndexAny(name, `/\`)+1:]
}

// suffix is DumpLogSegments' filename.substring(filename.lastIndexOf(".")),
// "" when the name has no dot (where Kafka would throw).
func suffix(name string) string {
	base := baseName(name)
	if i := strings.LastIndexByte(base, '.'); i >= 0 {
		return base[i:]
	}
	return ""
}

// startOffset is Kafka's file.getName.split("\\.")(0).toLong: the digits
// before the first dot. Long.parseLong and strconv.ParseInt accept the same
// strings in base 10.
func startOffset(name string) (int64, error) {
	base := baseName(name)
	head, _, _ := strings.Cut(base, ".")
	n, err := strconv.ParseInt(head, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("the file name %s does not start with a base offset", base)
	}
	return n, nil
}

// writer keeps the first write error so printing code reads straight.
type writer struct {
	w   io.Writer
	err error
}

func (w *writer) printf(format string, args ...any) {
	if w.err == nil {
		_, w.err = fmt.Fprintf(w.w, format, args...)
	}
}

func errWriter(w io.Writer, opts Options) *writer {
	if opts.Err != nil {
		return &writer{w: opts.Err}
	}
	return &writer{w: w}
}

// readAt reads exactly n bytes at off. A ReaderAt may report io.EOF with a
// full read at the end of its data; that is success.
func readAt(r io.ReaderAt, off int64, n int) ([]byte, error) {
	buf := make([]byte, n)
	got, err := r.ReadAt(buf, off)
	if got == n {
		return buf, nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return nil, fmt.Errorf("reading %d bytes at position %d: %w", n, off, err)
}
