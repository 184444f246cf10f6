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
	for from < l.EndOffset() && (limit <= 0 || len(out) < limit) {
		fd, err := l.Read(from, 1<<20, l.EndOffset())
		if err != nil {
			return out, err
		}
		batches, err := fd.Batches()
		if err != nil {
			return out, err
		}
		if len(batches) == 0 {
			break
		}
		for _, b := range batches {
			if !b.IsControl() {
				for _, r := range b.Records {
					off := b.Offset(r)
					if off < from || (limit > 0 && len(out) >= limit) {
						continue
					}
					out = append(out, RecordAt{Offset: off, Timestamp: b.Timestamp(r), Key: r.Key, Value: r.Value, Headers: r.Headers})
				}
			}
			from = max(from, b.NextOffset())
		}
	}
	return out, nil
}
