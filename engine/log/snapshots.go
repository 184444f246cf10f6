package log

import (
	"errors"
	"path"
	"slices"

	"github.com/loglab/loglab/engine/producerstate"
	"github.com/loglab/loglab/engine/storage"
)

// Producer-state snapshots (ProducerStateManager's snapshot files): the
// state as of an offset, written when a segment rolls (at the new
// segment's base, so recovering a segment can start from the snapshot at
// its base and scan only it) and on a clean shutdown (at the log end).
// On open the state comes from the latest snapshot at or below the log end,
// plus a replay of the batches after it; without one, from the whole log.

// Snapshots lists the offsets of the producer snapshot files, oldest first.
func (l *Log) Snapshots() []int64 { return slices.Clone(l.snapshots) }

func (l *Log) snapshotPath(offset int64) string {
	return path.Join(l.dir, producerstate.SnapshotFileName(offset))
}

// takeSnapshot writes the state as of offset (takeSnapshot), unless the
// latest snapshot is already there or beyond. Kafka defers the fsync of
// a roll's snapshot to the flush task; loglab syncs it at once.
func (l *Log) takeSnapshot(offset int64) error {
	if offset <= l.lastSnapOffset {
		return nil // "not a new offset, then it is not worth taking another snapshot"
	}
	f, err := l.fs.Create(l.snapshotPath(offset))
	if err != nil {
		return err
	}
	_, werr := f.Write(producerstate.EncodeSnapshot(l.producers.Producers()))
	if err := errors.Join(werr, f.Sync(), f.Close()); err != nil {
		return err
	}
	l.snapshots = append(l.snapshots, offset)
	l.lastSnapOffset = offset
	return nil
}

// deleteSnapshot removes one snapshot file.
func (l *Log) deleteSnapshot(offset int64) error {
	i, found := slices.BinarySearch(l.snapshots, offset)
	if !found {
		return nil
	}
	l.snapshots = slices.Delete(l.snapshots, i, i+1)
	if err := l.fs.Remove(l.snapshotPath(offset)); err != nil && !errors.Is(err, storage.ErrNotExist) {
		return err
	}
	return nil
}

// listSnapshots finds the snapshot files in the directory (loadSnapshots).
func listSnapshots(names []string) []int64 {
	var out []int64
	for _, name := range names {
		if off, suffix, ok := ParseFileName(name); ok && suffix == SnapshotSuffix {
			out = append(out, off)
		}
	}
	slices.Sort(out)
	return out
}

// reloadProducerState is ProducerStateManager.truncateAndReload followed by
// UnifiedLog.rebuildProducerState up to the log end: snapshots beyond the
// log end or at or below the log start are deleted, the state is loaded
// from the latest remaining snapshot no later than upTo (a corrupt one is
// deleted and the previous one tried), and the batches from there to the
// log end are replayed with the REPLICATION origin. Segments recovery
// rebuilt get their .txnindex entries back from this replay. The callers
// then write a snapshot at the log end, as Kafka's rebuild ends with one.
func (l *Log) reloadProducerState(upTo int64) error {
	end := l.EndOffset()
	for _, off := range slices.Clone(l.snapshots) {
		if off > end || off <= l.startOffset {
			if err := l.deleteSnapshot(off); err != nil {
				return err
			}
		}
	}
	l.producers = producerstate.NewManager(l.expirationMs)
	l.unreplicated = nil
	from := l.startOffset
	for i := len(l.snapshots) - 1; i >= 0; i-- {
		off := l.snapshots[i]
		if off > upTo {
			continue
		}
		entries, err := l.readSnapshot(off)
		if errors.Is(err, producerstate.ErrCorruptSnapshot) {
			// Kafka deletes a corrupt snapshot and tries the one before.
			if err := l.deleteSnapshot(off); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		l.producers.Load(entries, noClock)
		from = off
		break
	}
	l.lastSnapOffset = from
	if err := l.replayProducers(from); err != nil {
		return err
	}
	for _, s := range l.segments {
		s.recovered = false
	}
	return nil
}

func (l *Log) readSnapshot(offset int64) ([]producerstate.Entry, error) {
	f, err := l.fs.Open(l.snapshotPath(offset))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := readAll(f)
	if err != nil {
		return nil, err
	}
	return producerstate.DecodeSnapshot(raw)
}

// replayProducers feeds every batch from offset from to the log end into
// the producer state (loadProducersFromRecords).
func (l *Log) replayProducers(from int64) error {
	for i := l.segmentFor(from); i < len(l.segments); i++ {
		s := l.segments[i]
		if s.nextOffset <= from {
			continue
		}
		bs, err := s.batches()
		if err != nil {
			return err
		}
		for _, at := range bs {
			h := at.Header
			if h.LastOffset() < from || h.ProducerID == producerstate.NoProducerID {
				continue
			}
			var raw []byte
			if h.IsControl() {
				raw = make([]byte, h.Size())
				if err := storage.ReadFull(s.log, raw, at.Position); err != nil {
					return err
				}
			}
			pb, track, err := producerBatch(h, raw, 0)
			if err != nil {
				return err
			}
			if !track {
				continue
			}
			if err := l.applyProducerBatch(s, pb, producerstate.Replication, s.recovered); err != nil {
				return &producerstate.ReplayError{Offset: h.BaseOffset, Err: err}
			}
		}
	}
	return nil
}
