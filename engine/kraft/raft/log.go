package raft

import (
	"fmt"

	"github.com/loglab/loglab/engine/protocol"
)

// Log is one node's copy of __cluster_metadata-0: the entries from
// StartOffset to EndOffset, and below StartOffset the latest snapshot.
// Every entry is one record at one offset; its epoch is the epoch of the
// leader that wrote it (Kafka's batch partitionLeaderEpoch).
type Log struct {
	start    int64 // offset of entries[0]
	entries  []protocol.MetadataEntry
	snapshot *Snapshot // covers every offset below start; nil: start is 0
}

// Snapshot is the metadata state at an offset, as records that rebuild it
// (Kafka's <offset>-<epoch>.checkpoint file).
type Snapshot struct {
	ID      protocol.SnapshotID
	Records []protocol.MetadataRecord
}

// StartOffset is the first offset still held as an entry.
func (l *Log) StartOffset() int64 { return l.start }

// EndOffset is the offset the next entry gets (the log end offset).
func (l *Log) EndOffset() int64 { return l.start + int64(len(l.entries)) }

// LatestSnapshot is the snapshot below StartOffset, or nil.
func (l *Log) LatestSnapshot() *Snapshot { return l.snapshot }

// LastEpoch is the epoch of the last entry (or of the snapshot, or 0).
func (l *Log) LastEpoch() int32 {
	if n := len(l.entries); n > 0 {
		return l.entries[n-1].Epoch
	}
	if l.snapshot != nil {
		return l.snapshot.ID.Epoch
	}
	return 0
}

// Entry returns the entry at offset; ok is false outside [start, end).
func (l *Log) Entry(offset int64) (protocol.MetadataEntry, bool) {
	if offset < l.start || offset >= l.EndOffset() {
		return protocol.MetadataEntry{}, false
	}
	return l.entries[offset-l.start], true
}

// Entries returns up to max entries from offset (a copy).
func (l *Log) Entries(from int64, max int) []protocol.MetadataEntry {
	if from < l.start || from >= l.EndOffset() {
		return nil
	}
	to := min(l.EndOffset(), from+int64(max))
	return append([]protocol.MetadataEntry(nil), l.entries[from-l.start:to-l.start]...)
}

// Append adds entries at the end; their records' Offset fields are set.
func (l *Log) Append(entries []protocol.MetadataEntry) []protocol.MetadataEntry {
	out := make([]protocol.MetadataEntry, len(entries))
	for i, e := range entries {
		e.Record.Offset = l.EndOffset()
		l.entries = append(l.entries, e)
		out[i] = e
	}
	return out
}

// TruncateTo removes every entry at offset and above. Below the snapshot
// it changes nothing and answers an error: the entries there are gone, so
// the log cannot end at offset. Kafka's KafkaMetadataLog.truncateTo throws
// below the high watermark, and the raft IO thread's fatal fault handler
// stops the node; the node halts likewise (halt.go). It used to panic,
// and a panic in a controller ended the whole workshop server.
func (l *Log) TruncateTo(offset int64) error {
	if offset >= l.EndOffset() {
		return nil
	}
	if offset < l.start {
		return fmt.Errorf("metadata log: truncating to %d, below the snapshot at %d", offset, l.start)
	}
	l.entries = l.entries[:offset-l.start]
	return nil
}

// EndOffsetForEpoch is Kafka's LeaderEpochFileCache.endOffsetFor as the
// leader answers a fetch: the largest epoch ≤ epoch in this log and the
// offset where it ends (the start of the next epoch, or the log end).
// An epoch older than anything held answers (-1, -1) unless the snapshot
// covers it.
func (l *Log) EndOffsetForEpoch(epoch int32) (int32, int64) {
	if epoch >= l.LastEpoch() && (len(l.entries) > 0 || l.snapshot != nil) {
		return l.LastEpoch(), l.EndOffset()
	}
	// Walk back to the last entry whose epoch is ≤ epoch: its epoch ends
	// where the next entry (of a larger epoch) begins.
	for i := len(l.entries) - 1; i >= 0; i-- {
		if l.entries[i].Epoch <= epoch {
			return l.entries[i].Epoch, l.start + int64(i) + 1
		}
	}
	if l.snapshot != nil && l.snapshot.ID.Epoch <= epoch {
		return l.snapshot.ID.Epoch, l.snapshot.ID.EndOffset
	}
	return -1, -1
}

// InstallSnapshot makes snap the log's base: entries below its end offset
// go, and when the log does not hold the snapshot's last entry (a follower
// that fetched it), the whole log is replaced by it (Kafka's
// truncateToLatestSnapshot).
func (l *Log) InstallSnapshot(snap Snapshot) {
	end := snap.ID.EndOffset
	if e, ok := l.Entry(end - 1); ok && e.Epoch == snap.ID.Epoch {
		l.entries = l.entries[end-l.start:]
	} else {
		l.entries = nil
	}
	l.start, l.snapshot = end, &snap
}
