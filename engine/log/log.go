// Package log is a partition's log: an append-only sequence of records
// addressed by offset. Kafka reduces a message queue to exactly this; readers
// keep their own position and nothing is removed by reading.
//
// This first slice keeps records in memory. Segments, indexes, retention and
// the on-disk format arrive with the storage issue behind the same methods.
package log

import (
	"errors"
	"fmt"
)

// ErrOffsetOutOfRange is Kafka's OFFSET_OUT_OF_RANGE: a read below the log
// start offset or beyond the log end offset.
var ErrOffsetOutOfRange = errors.New("OFFSET_OUT_OF_RANGE")

// Record is one record as stored. A nil Key is Kafka's null key, which is
// different from an empty one: null keys are spread by the partitioner,
// empty keys are hashed like any other.
type Record struct {
	Offset    int64
	Timestamp int64 // CreateTime, milliseconds since the Unix epoch
	Key       []byte
	Value     []byte
}

// Log is one partition's log.
type Log struct {
	startOffset int64
	records     []Record
}

// New returns an empty log starting at offset 0.
func New() *Log { return &Log{} }

// StartOffset is the first offset still readable (Kafka's log start offset).
func (l *Log) StartOffset() int64 { return l.startOffset }

// EndOffset is the offset the next record will get (Kafka's log end offset,
// LEO): one past the last record.
func (l *Log) EndOffset() int64 { return l.startOffset + int64(len(l.records)) }

// Append stores a record and returns the offset it was given. Offsets are
// assigned by the log, never by the writer, so they are dense and increasing.
func (l *Log) Append(timestamp int64, key, value []byte) int64 {
	offset := l.EndOffset()
	l.records = append(l.records, Record{
		Offset:    offset,
		Timestamp: timestamp,
		Key:       cloneBytes(key),
		Value:     cloneBytes(value),
	})
	return offset
}

// Read returns up to max records starting at offset from. Reading exactly at
// the end offset is valid and returns nothing: a consumer that is caught up
// simply waits. max <= 0 means no limit.
func (l *Log) Read(from int64, max int) ([]Record, error) {
	if from < l.startOffset || from > l.EndOffset() {
		return nil, fmt.Errorf("%w: offset %d is outside [%d, %d]", ErrOffsetOutOfRange, from, l.startOffset, l.EndOffset())
	}
	rest := l.records[from-l.startOffset:]
	if max > 0 && len(rest) > max {
		rest = rest[:max]
	}
	return rest, nil
}

// cloneBytes copies b, keeping nil (a null key or value) distinct from empty.
func cloneBytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}
