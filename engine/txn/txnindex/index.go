package txnindex

// TransactionIndex mirrors Kafka's TransactionIndex over an in-memory copy
// of the file's bytes: the bytes are the source of truth, as Kafka's file
// is, and every query walks them from the start in EntrySize steps.
type TransactionIndex struct {
	startOffset int64
	path        string
	data        []byte
	// lastOffset is Kafka's nullable Long: the last offset appended through
	// this object, NOT read back from an opened file (Kafka's constructor
	// leaves it null), so the first append after Open is never refused.
	lastOffset    int64
	hasLastOffset bool
}

// New is an index for a segment whose file does not exist yet (Kafka
// creates the file only on the first append).
func New(startOffset int64, path string) *TransactionIndex {
	return &TransactionIndex{startOffset: startOffset, path: path}
}

// Open is an index over an existing file's bytes; data is copied.
func Open(startOffset int64, path string, data []byte) *TransactionIndex {
	return &TransactionIndex{startOffset: startOffset, path: path, data: append([]byte(nil), data...)}
}

// Path is the file name used in error texts.
func (x *TransactionIndex) Path() string { return x.path }

// Bytes is a copy of the file's bytes.
func (x *TransactionIndex) Bytes() []byte { return append([]byte(nil), x.data...) }

// IsEmpty mirrors TransactionIndex.isEmpty, !iterable().iterator().hasNext():
// no complete entry to read, so a lone partial entry counts as empty.
func (x *TransactionIndex) IsEmpty() bool { return len(x.data) < EntrySize }

// Append mirrors TransactionIndex.append. Like Kafka it writes at the end
// of the file: after a trailing partial entry the new entry is misaligned
// and reads back as garbage, which is Kafka's behaviour too.
func (x *TransactionIndex) Append(t AbortedTxn) error {
	if x.hasLastOffset && x.lastOffset >= t.LastOffset {
		return &NonIncreasingLastOffsetError{LastOffset: t.LastOffset, CurrentLastOffset: x.lastOffset, Path: x.path}
	}
	x.lastOffset, x.hasLastOffset = t.LastOffset, true
	x.data = t.AppendTo(x.data)
	return nil
}

// Reset mirrors TransactionIndex.reset: remove all entries.
func (x *TransactionIndex) Reset() {
	x.data = nil
	x.hasLastOffset = false
}

// TruncateTo mirrors TransactionIndex.truncateTo: drop the first entry
// whose lastOffset >= offset and everything after it (a transaction that
// ended at or after the new log end is no longer in the log). When no
// entry qualifies Kafka changes nothing, not even a trailing partial
// entry, and leaves its remembered last offset as it was.
func (x *TransactionIndex) TruncateTo(offset int64) error {
	var newLast int64
	hasNewLast := false
	err := x.each(func(t AbortedTxn, pos int) bool {
		if t.LastOffset >= offset {
			x.data = x.data[:pos]
			x.lastOffset, x.hasLastOffset = newLast, hasNewLast
			return false
		}
		newLast, hasNewLast = t.LastOffset, true
		return true
	})
	return err
}

// AllAbortedTxns mirrors TransactionIndex.allAbortedTxns. On a bad version
// Kafka throws and returns nothing, so this returns no entries either.
func (x *TransactionIndex) AllAbortedTxns() ([]AbortedTxn, error) {
	var out []AbortedTxn
	err := x.each(func(t AbortedTxn, _ int) bool {
		out = append(out, t)
		return true
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// TxnIndexSearchResult mirrors Kafka's TxnIndexSearchResult.
type TxnIndexSearchResult struct {
	AbortedTransactions []AbortedTxn
	// IsComplete: an entry's lastStableOffset reached upperBoundOffset.
	// Every transaction aborted later (in this or a later segment) was
	// still open at that LSO, so it started at or after it and cannot
	// overlap the fetch range: the caller (LocalLog.collectAbortedTransactions)
	// stops walking segments. When false, it searches the next segment.
	IsComplete bool
}

// CollectAbortedTxns mirrors TransactionIndex.collectAbortedTxns: the
// aborted transactions overlapping [fetchOffset, upperBoundOffset), i.e.
// lastOffset >= fetchOffset && firstOffset < upperBoundOffset, in file
// order. It stops at the first entry whose lastStableOffset >=
// upperBoundOffset (that entry itself is collected if it overlaps).
func (x *TransactionIndex) CollectAbortedTxns(fetchOffset, upperBoundOffset int64) (TxnIndexSearchResult, error) {
	var r TxnIndexSearchResult
	err := x.each(func(t AbortedTxn, _ int) bool {
		if t.LastOffset >= fetchOffset && t.FirstOffset < upperBoundOffset {
			r.AbortedTransactions = append(r.AbortedTransactions, t)
		}
		if t.LastStableOffset >= upperBoundOffset {
			r.IsComplete = true
			return false
		}
		return true
	})
	if err != nil {
		return TxnIndexSearchResult{}, err
	}
	return r, nil
}

// SanityCheck mirrors TransactionIndex.sanityCheck, run when a segment is
// loaded: an entry ending before the segment's base offset is corrupt. It
// does not notice a trailing partial entry (neither does Kafka).
func (x *TransactionIndex) SanityCheck() error {
	var bad error
	err := x.each(func(t AbortedTxn, _ int) bool {
		if t.LastOffset < x.startOffset {
			bad = &CorruptIndexError{Txn: t, Path: x.path, StartOffset: x.startOffset}
			return false
		}
		return true
	})
	if err != nil {
		return err
	}
	return bad
}

// each is TransactionIndex.iterable: complete entries only (hasNext needs
// EntrySize bytes left), the version checked as each entry is read.
func (x *TransactionIndex) each(visit func(t AbortedTxn, pos int) bool) error {
	for pos := 0; len(x.data)-pos >= EntrySize; pos += EntrySize {
		t := decodeEntry(x.data[pos : pos+EntrySize])
		if v := t.KafkaVersion(); v > CurrentVersion {
			return &UnexpectedVersionError{Version: v, Path: x.path, Position: pos}
		}
		if !visit(t, pos) {
			return nil
		}
	}
	return nil
}
