package view

// Inspector is what the learner asked to look at closely: one batch's
// bytes, or one offset lookup traced step by step. At most one is open.
type Inspector struct {
	Batch  *BatchDetail
	Lookup *LookupTrace
}

// BatchDetail is one RecordBatch as stored: its header fields, each with
// the byte range it occupies, its records, and the raw bytes as hex rows
// coloured by field.
type BatchDetail struct {
	Partition string // e.g. "orders/0"
	File      string // the segment file
	// Broker is the broker whose replica was read; Gone says the segment
	// File no longer exists there (retention or truncation deleted it
	// since): the panel shows what it held, and says so.
	Broker   int
	Gone     bool
	Position int64 // byte position in the file
	Size     int
	Valid    bool // the CRC matches
	Fields   []Field
	Records  []RecordDetail
	Hex      []HexRow
}

// Field is one header field: name, value as dump-log prints it, and the
// byte range [Start, End) within the batch.
type Field struct {
	Name       string
	Value      string
	Start, End int
}

// RecordDetail is one decoded record of a batch.
type RecordDetail struct {
	Offset    int64
	Timestamp int64
	Key       string
	Value     string
	Headers   string
}

// HexRow is 16 bytes of a batch.
type HexRow struct {
	Offset int
	Cells  []HexCell
}

// HexCell is one byte; Field indexes Fields (-1: the records section).
type HexCell struct {
	Hex   string
	Field int
}

// LookupTrace is an offset lookup traced: which segment, the index entries
// the binary search probed, the entry it settled on, and the batches the
// forward scan read until it reached the target.
type LookupTrace struct {
	Partition string
	Target    int64
	Segment   string
	// Broker is the broker whose replica was read; Gone says the segment
	// no longer exists there (retention or truncation deleted it since
	// the lookup), so the trace describes a file that is not there.
	Broker  int
	Gone    bool
	Index   []IndexEntry // the segment's whole sparse index
	Probes  []IndexEntry // in the order probed
	Start   IndexEntry   // where the scan began
	Scanned []ScannedBatch
	Found   bool
}

// ScannedBatch is one batch header read by the forward scan.
type ScannedBatch struct {
	Position   int64
	BaseOffset int64
	LastOffset int64
	Size       int
}
