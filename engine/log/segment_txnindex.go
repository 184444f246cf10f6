package log

import (
	"errors"

	"github.com/loglab/loglab/engine/storage"
	"github.com/loglab/loglab/engine/txn/txnindex"
)

// segmentTxnIndex is a segment's .txnindex: the aborted transactions whose
// ABORT marker landed in the segment (LogSegment.updateTxnIndex). As in
// Kafka the file is created lazily, by the first entry, so a segment that
// never saw an abort has no .txnindex file. The in-memory index is the
// source of truth for queries; the file follows it byte for byte.
type segmentTxnIndex struct {
	fs   storage.FS
	name string
	idx  *txnindex.TransactionIndex
	file storage.File // nil until the file exists
}

func newSegmentTxnIndex(fs storage.FS, base int64, name string) *segmentTxnIndex {
	return &segmentTxnIndex{fs: fs, name: name, idx: txnindex.New(base, name)}
}

// openSegmentTxnIndex loads an existing file, if any.
func openSegmentTxnIndex(fs storage.FS, base int64, name string) (*segmentTxnIndex, error) {
	t := newSegmentTxnIndex(fs, base, name)
	f, err := fs.Open(name)
	if errors.Is(err, storage.ErrNotExist) {
		return t, nil
	}
	if err != nil {
		return nil, err
	}
	raw, err := readAll(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	t.file, t.idx = f, txnindex.Open(base, name, raw)
	return t, nil
}

func (t *segmentTxnIndex) append(a txnindex.AbortedTxn) error {
	if err := t.idx.Append(a); err != nil {
		return err
	}
	if t.file == nil {
		f, err := t.fs.Create(t.name)
		if err != nil {
			return err
		}
		t.file = f
	}
	_, err := t.file.Write(a.AppendTo(nil))
	return err
}

// truncateTo drops the entries of transactions ending at or after offset
// (TransactionIndex.truncateTo), as the segment is cut there.
func (t *segmentTxnIndex) truncateTo(offset int64) error {
	if err := t.idx.TruncateTo(offset); err != nil {
		return err
	}
	return t.syncSize()
}

// reset empties the index before recovery rebuilds it from the log.
func (t *segmentTxnIndex) reset() error {
	t.idx.Reset()
	return t.syncSize()
}

func (t *segmentTxnIndex) syncSize() error {
	if t.file == nil {
		return nil
	}
	if n := int64(len(t.idx.Bytes())); n < t.file.Size() {
		return t.file.Truncate(n)
	}
	return nil
}

func (t *segmentTxnIndex) sync() error {
	if t.file == nil {
		return nil
	}
	return t.file.Sync()
}

func (t *segmentTxnIndex) close() error {
	if t.file == nil {
		return nil
	}
	return t.file.Close()
}

// Entries is every aborted transaction recorded in the index.
func (t *segmentTxnIndex) entries() []txnindex.AbortedTxn {
	all, _ := t.idx.AllAbortedTxns()
	return all
}
