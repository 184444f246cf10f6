package txnindex

import "fmt"

// UnexpectedVersionError is the KafkaException TransactionIndex's iterator
// throws when an entry's version (as Kafka reads it, see KafkaVersion) is
// above CurrentVersion. Kafka throws it lazily, when iteration reaches the
// entry: a query that stops earlier never sees it.
type UnexpectedVersionError struct {
	Version  int16
	Path     string
	Position int
}

func (e *UnexpectedVersionError) Error() string {
	return fmt.Sprintf("Unexpected aborted transaction version %d in transaction index %s, current version is %d",
		e.Version, e.Path, CurrentVersion)
}

// NonIncreasingLastOffsetError is the IllegalArgumentException
// TransactionIndex.append throws: entries are appended in the order their
// ABORT markers are written, so lastOffset must strictly increase.
type NonIncreasingLastOffsetError struct {
	LastOffset, CurrentLastOffset int64
	Path                          string
}

func (e *NonIncreasingLastOffsetError) Error() string {
	return fmt.Sprintf("The last offset of appended transactions must increase sequentially, but %d is not greater than current last offset %d of index %s",
		e.LastOffset, e.CurrentLastOffset, e.Path)
}

// CorruptIndexError is the CorruptIndexException
// TransactionIndex.sanityCheck throws when an entry ends before the
// segment's base offset, so it cannot belong to this segment.
type CorruptIndexError struct {
	Txn         AbortedTxn
	Path        string
	StartOffset int64
}

func (e *CorruptIndexError) Error() string {
	return fmt.Sprintf("Last offset of aborted transaction %s in index %s is less than start offset %d",
		e.Txn, e.Path, e.StartOffset)
}
