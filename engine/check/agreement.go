package check

import (
	"bytes"

	"github.com/loglab/loglab/engine/log"
	"github.com/loglab/loglab/engine/record"
)

// The batch-by-batch comparison of two replicas below the high
// watermark (replicas-agree), and the memory of which of the leader's
// batches were found valid, shared by its followers' comparisons.

// sameBatchesBelow compares, batch by batch, the raw batches of two
// replicas holding offsets [from, hw). It fails when either holds a batch
// that does not decode (record.Validate) or cannot be read. Batches are
// compared rather than reads: a read returns whole batches but only from
// one segment, and replicas roll their segments independently (segment.ms,
// or retention rolling an expired active segment, as in Kafka's
// UnifiedLog.deleteOldSegments), so the same batches come in differently
// cut reads on two replicas: comparing reads instead of batches reported
// identical logs as different (VOPR seeds 5 and 108).
//
// Both are read one batch at a time, to their ends even once they differ
// (an unreadable batch further on still means no verdict). A follower's
// batch equal to the leader's is as valid as the leader's, and aValid
// knows the leader's batches validated for another follower: each
// batch is parsed once, not copied and decoded once per replica and per
// follower, which after a large produce was a fifth of the command's time.
func sameBatchesBelow(a, b *log.Log, from, hw int64, aValid *leaderWalk) (bool, error) {
	ra, rb := a.RawBatches(from, hw), b.RawBatches(from, hw)
	aValid.start(from)
	same := true
	for {
		x, err := ra.Next()
		if err != nil {
			return false, err
		}
		if x != nil {
			if err := aValid.validate(x); err != nil {
				return false, err
			}
		}
		y, err := rb.Next()
		if err != nil {
			return false, err
		}
		if x == nil && y == nil {
			return same, nil
		}
		switch {
		case y == nil:
			same = false // b's walk ended while a still has batches
		case x == nil || !bytes.Equal(x, y):
			same = false
			if err := record.Validate(y); err != nil {
				return false, err
			}
		}
	}
}

// leaderWalk remembers how many batches of the leader's walk from an
// offset were found valid: a second follower compared from the same
// offset reads the same batches (nothing runs during a check).
type leaderWalk struct {
	from  int64
	valid int // batches from from on found valid
	at    int // batches of the current walk read so far
	set   bool
}

// start begins a walk from from, forgetting what an earlier walk from
// another offset found.
func (w *leaderWalk) start(from int64) {
	if !w.set || w.from != from {
		w.from, w.valid, w.set = from, 0, true
	}
	w.at = 0
}

// validate validates the walk's next batch unless an earlier walk from
// the same offset found it valid.
func (w *leaderWalk) validate(raw []byte) error {
	w.at++
	if w.at <= w.valid {
		return nil
	}
	if err := record.Validate(raw); err != nil {
		return err
	}
	w.valid = w.at
	return nil
}
