package check

import (
	"testing"

	"github.com/loglab/loglab/engine/log"
	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/storage"
)

func oneRecordBatch(v string) *record.Batch {
	return &record.Batch{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1,
		Records: []record.Record{{Value: []byte(v)}}}
}

// epochLog is a log on its own memory disk, built by build.
func epochLog(t *testing.T, build func(t *testing.T, fs storage.FS, l *log.Log) *log.Log) *log.Log {
	t.Helper()
	fs := storage.NewMem()
	l, _, err := log.Open(fs, "t0-1", log.DefaultConfig(), 0)
	if err != nil {
		t.Fatal(err)
	}
	return build(t, fs, l)
}

// appendEpoch appends n one-record batches written by leader epoch epoch.
func appendEpoch(t *testing.T, l *log.Log, epoch int32, n int) {
	t.Helper()
	for range n {
		if _, err := l.AppendAsLeader(oneRecordBatch("v"), epoch); err != nil {
			t.Fatal(err)
		}
	}
}

func roll(t *testing.T, l *log.Log) {
	t.Helper()
	if err := l.Roll(); err != nil {
		t.Fatal(err)
	}
}

// reopen is a crash and a restart: the log loaded again from its files
// (Kafka's LogLoader.load).
func reopen(t *testing.T, fs storage.FS, l *log.Log) *log.Log {
	t.Helper()
	l.Close()
	l, _, err := log.Open(fs, "t0-1", log.DefaultConfig(), 0)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// sameEpochs compares leader-epoch histories only where both speak for
// the offsets, as Kafka keeps them. The cases mirror how Kafka's caches
// come to differ at their start: LeaderEpochFileCacheTest's
// shouldUpdateSavedOffsetWhenOffsetToClearToIsBetweenEpochs (a log start
// offset that moves rewrites the first entry) and
// shouldNotClearAnythingIfOffsetToEarly (LogLoader.load's
// truncateFromStart with a log start below the cache changes nothing),
// and LogLoaderTest.testLogStartOffsetWhenRemoteStorageIsEnabled (a
// reloaded log starts at the larger of its log-start-offset-checkpoint
// and its first segment's base: the first segment's when the checkpoint
// was not written since the log start moved).
func TestSameEpochsFromWhereBothHistoriesStart(t *testing.T) {
	// The leader of VOPR seed 391: epoch 0 from 33... here from 0, then
	// elected (uncleanly) at epoch 5 at its log end 10.
	leader := func(t *testing.T, fs storage.FS, l *log.Log) *log.Log {
		appendEpoch(t, l, 0, 10)
		if err := l.Epochs().Assign(5, l.EndOffset()); err != nil {
			t.Fatal(err)
		}
		return l
	}
	// A follower that took its leader's log start offset 7 while its
	// segment 0-5 was still there (UnifiedLog.maybeIncrementLogStartOffset),
	// then crashed before retention deleted the segment and before
	// log-start-offset-checkpoint was written: it reloads with log start 0
	// and the history [0@7].
	reloadedBelowItsHistory := func(t *testing.T, fs storage.FS, l *log.Log) *log.Log {
		appendEpoch(t, l, 0, 6)
		roll(t, l)
		appendEpoch(t, l, 0, 4)
		if err := l.MaybeIncrementLogStartOffset(7); err != nil {
			t.Fatal(err)
		}
		l = reopen(t, fs, l)
		if es := l.Epochs().Entries(); l.StartOffset() != 0 || len(es) != 1 || es[0] != (log.EpochEntry{Epoch: 0, StartOffset: 7}) {
			t.Fatalf("reloaded: log start %d, epochs %v; want 0 and [0@7]", l.StartOffset(), es)
		}
		return l
	}
	for _, c := range []struct {
		name             string
		leader, follower func(*testing.T, storage.FS, *log.Log) *log.Log
		same             bool
	}{
		{"the same history", leader, leader, true},
		{"the follower's retention went further (truncateFromStart)", leader,
			func(t *testing.T, fs storage.FS, l *log.Log) *log.Log {
				appendEpoch(t, l, 0, 6)
				roll(t, l)
				appendEpoch(t, l, 0, 4)
				if err := l.MaybeIncrementLogStartOffset(7); err != nil {
					t.Fatal(err)
				}
				if _, err := l.DeleteOldSegments(0, l.EndOffset()); err != nil {
					t.Fatal(err)
				}
				return l
			}, true},
		{"seed 391: a follower reloaded with its log start below its history", leader, reloadedBelowItsHistory, true},
		{"the leader reloaded with its log start below its history", reloadedBelowItsHistory,
			func(t *testing.T, fs storage.FS, l *log.Log) *log.Log {
				appendEpoch(t, l, 0, 10)
				return l
			}, true},
		{"another epoch where both histories speak", leader,
			func(t *testing.T, fs storage.FS, l *log.Log) *log.Log {
				appendEpoch(t, l, 0, 6)
				appendEpoch(t, l, 3, 4)
				return l
			}, false},
		{"a history that starts later but differs there", func(t *testing.T, fs storage.FS, l *log.Log) *log.Log {
			appendEpoch(t, l, 0, 8)
			appendEpoch(t, l, 4, 2)
			return l
		}, reloadedBelowItsHistory, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			l, f := epochLog(t, c.leader), epochLog(t, c.follower)
			if got := sameEpochs(l, f); got != c.same {
				t.Errorf("leader [%d, %d) %s, follower [%d, %d) %s: same %v, want %v",
					l.StartOffset(), l.EndOffset(), formatEpochs(l.Epochs().Entries()),
					f.StartOffset(), f.EndOffset(), formatEpochs(f.Epochs().Entries()), got, c.same)
			}
		})
	}
}
