package txnindex

// Decoded is a whole .txnindex file read as Kafka reads it.
type Decoded struct {
	// Entries are what TransactionIndex.allAbortedTxns returns.
	Entries []AbortedTxn
	// TrailingPartialEntry is the count (1..33) of bytes after the last
	// complete entry. Kafka's iterator silently ignores them (hasNext
	// wants EntrySize bytes); loglab reports them so the lab can show
	// them, e.g. after a torn write.
	TrailingPartialEntry int
}

// Decode reads a .txnindex file's bytes. path names the file in errors,
// as Kafka's messages do. Its only error is *UnexpectedVersionError.
func Decode(path string, data []byte) (Decoded, error) {
	entries, err := Open(0, path, data).AllAbortedTxns()
	if err != nil {
		return Decoded{}, err
	}
	return Decoded{Entries: entries, TrailingPartialEntry: len(data) % EntrySize}, nil
}

// Encode is the bytes of a file holding entries, in order.
func Encode(entries []AbortedTxn) []byte {
	b := make([]byte, 0, len(entries)*EntrySize)
	for _, t := range entries {
		b = t.AppendTo(b)
	}
	return b
}
