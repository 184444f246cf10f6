package log

import "github.com/loglab/loglab/engine/record"

// RecordAt is a record with its absolute offset and timestamp, as a
// consumer sees it after decoding a batch.
type RecordAt struct {
	Offset    int64
	Timestamp int64
	Key       []byte
	Value     []byte
	Headers   []record.Header
}

// Records decodes up to limit records from offset from on (limit <= 0: all up
// to the log end), skipping the earlier records of the first batch and any
// gaps compaction left. Control records are skipped, as consumers skip them.
func (l *Log) Records(from int64, limit int) ([]RecordAt, error) {
	var out []RecordAt
	err := l.EachBatch(from, l.EndOffset(), func(b *record.Batch) bool {
		if !b.IsControl() {
			for _, r := range b.Records {
				if off := b.Offset(r); off >= from && (limit <= 0 || len(out) < limit) {
					out = append(out, RecordAt{Offset: off, Timestamp: b.Timestamp(r), Key: r.Key, Value: r.Value, Headers: r.Headers})
				}
			}
		}
		return limit <= 0 || len(out) < limit
	})
	return out, err
}

// EachBatch decodes, in offset order, the batches holding offsets from
// from up to to (whole batches: the last may end past to) and calls fn with
// each until it returns false. Markers are included: the coordinators'
// loads, the checker and the view need a batch's producer and control
// fields, not only its records.
func (l *Log) EachBatch(from, to int64, fn func(b *record.Batch) bool) error {
	// Decode one batch at a time, not the whole read: a caller that stops
	// early (Records with a limit) would otherwise decode up to a megabyte
	// of batches per call, and the cost of checking a produce grew with the
	// size of the log rather than of the produce.
	rb := l.RawBatches(from, min(to, l.EndOffset()))
	for {
		raw, err := rb.Next()
		if err != nil || raw == nil {
			return err
		}
		b, _, err := record.Decode(raw)
		if err != nil {
			return err
		}
		if b.NextOffset() <= from {
			continue // before from: the read starts at the batch holding it
		}
		if !fn(&b) {
			return nil
		}
		from = b.NextOffset()
	}
}

// EachValidBatch is EachBatch for a reader of batch headers: fn gets each
// batch's header and bytes (valid until fn returns) once the batch has
// passed every check Decode makes (record.Validate), without its records
// being decoded or copied. It stops where EachBatch stops, at a batch that
// does not decode, with the same error. The invariant checker's scan of
// every producer's batches after a large produce spent most of its time
// and garbage decoding records it never looked at.
func (l *Log) EachValidBatch(from, to int64, fn func(h record.BatchHeader, raw []byte) bool) error {
	rb := l.RawBatches(from, min(to, l.EndOffset()))
	for {
		raw, err := rb.Next()
		if err != nil || raw == nil {
			return err
		}
		if err := record.Validate(raw); err != nil {
			return err
		}
		h, err := record.ReadHeader(raw)
		if err != nil {
			return err // not reached: Validate read the header
		}
		if h.NextOffset() <= from {
			continue // before from: the read starts at the batch holding it
		}
		if !fn(h, raw) {
			return nil
		}
		from = h.NextOffset()
	}
}
