package dumplog

import (
	"io"

	"github.com/loglab/loglab/engine/txn/txnindex"
)

// dumpTxnIndex is DumpLogSegments.dumpTxnIndex: a line per aborted
// transaction of a .txnindex file (TransactionIndex.allAbortedTxns),
//
//	version: 0 producerId: 7 firstOffset: 3 lastOffset: 9 lastStableOffset: 3
//
// An entry with a version above 0 is Kafka's KafkaException "Unexpected
// aborted transaction version V in transaction index FILE, current
// version is 0", thrown before anything is printed: Kafka's dump dies with
// it, loglab prints it to the error writer and goes on with the next file.
// Bytes after the last whole entry (a torn write) are ignored by Kafka;
// loglab says so on the error writer.
func dumpTxnIndex(w io.Writer, name string, r io.ReaderAt, size int64, opts Options) error {
	out, errOut := &writer{w: w}, errWriter(w, opts)
	out.printf("Dumping %s\n", name)
	if size > maxBatchRead {
		errOut.printf("Could not dump %s: it is %d bytes, more than loglab reads (%d)\n", name, size, maxBatchRead)
		return out.err
	}
	data, err := readAt(r, 0, int(size))
	if err != nil {
		return err
	}
	d, err := txnindex.Decode(name, data)
	if err != nil {
		errOut.printf("%v\n", err)
		return out.err
	}
	for _, t := range d.Entries {
		out.printf("%s\n", t.DumpLine())
	}
	if d.TrailingPartialEntry > 0 {
		errOut.printf("Found %d bytes after the last complete entry of %s, too few for an entry (%d bytes); Kafka ignores them\n",
			d.TrailingPartialEntry, name, txnindex.EntrySize)
	}
	return out.err
}
