package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/loglab/loglab/engine/log"
)

// The converged property's comparison of two replicas' leader-epoch
// histories (liveness.go asks it of every live follower and its leader).

// sameEpochs compares two replicas' leader-epoch histories over the
// offsets both still hold (retention trims each on its own schedule) and
// that hold records: a leader assigns its epoch when elected, before it
// writes anything, and a follower learns epochs only from the batches it
// copies. A compacted log can lose whole epochs' batches before a
// follower copies them, so only its log end is compared.
//
// Nor does Kafka guarantee that a replica's history reaches back to its
// own log start offset, so the comparison starts where both histories
// do. A follower that takes its leader's log start offset
// (UnifiedLog.maybeIncrementLogStartOffset) truncates its epoch cache
// from the start at once (LeaderEpochFileCache.truncateFromStartAsyncFlush
// writes leader-epoch-checkpoint right after), but the segments below it
// go only at the next retention check, and the log start offset itself
// is written to log-start-offset-checkpoint only every
// log.flush.start.offset.checkpoint.interval.ms (LogManager's
// kafka-log-start-offset-checkpoint task, after log.initial.task.delay.ms)
// and at a clean shutdown. A broker that crashes in between reloads with
// the log start offset of its first segment (LogLoader.load: the larger
// of the checkpoint and the first segment's base offset) and an epoch
// cache that starts higher; LogLoader only truncates the cache from the
// start (truncateFromStartAsyncFlush(logStartOffsetCheckpoint)), and the
// cache only ever gains epochs newer than its latest (assign), so nothing
// puts the older entry back, however long the replica follows. VOPR seed
// 391: b3 took b4's log start 68 (cache 0@68 2@73), crashed 1.3 s after
// its restart with segment 33-67 still there, came back with log start
// 33, and its history [0@68] never became its new leader's [0@33 5@73].
// A history with no entry at all while the log holds records has no
// such excuse (assign writes its checkpoint before the append), so it is
// compared from the log start.
func sameEpochs(a, b *log.Log) bool {
	if a.Config().Compact() || b.Config().Compact() {
		return true
	}
	from := max(historyStart(a), historyStart(b))
	return slices.Equal(epochsHolding(a, from), epochsHolding(b, from))
}

// historyStart is the first offset l's epoch history speaks for: its log
// start offset, or its first epoch's start when that is higher.
func historyStart(l *log.Log) int64 {
	from := l.StartOffset()
	if es := l.Epochs().Entries(); len(es) > 0 {
		from = max(from, es[0].StartOffset)
	}
	return from
}

// epochsHolding is l's epoch history from offset from on, keeping only
// the epochs that start at least one record, each starting at from at
// the earliest.
func epochsHolding(l *log.Log, from int64) []log.EpochEntry {
	es := l.Epochs().Entries()
	var out []log.EpochEntry
	for i, e := range es {
		end := l.EndOffset()
		if i+1 < len(es) {
			end = es[i+1].StartOffset
		}
		if end <= from || e.StartOffset >= end {
			continue
		}
		out = append(out, log.EpochEntry{Epoch: e.Epoch, StartOffset: max(e.StartOffset, from)})
	}
	return out
}

func formatEpochs(es []log.EpochEntry) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = fmt.Sprintf("%d@%d", e.Epoch, e.StartOffset)
	}
	return "[" + strings.Join(parts, " ") + "]"
}
