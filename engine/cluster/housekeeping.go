package cluster

import (
	"fmt"
	"time"

	"github.com/loglab/loglab/engine/log"
)

// Housekeeping is what the brokers' periodic log tasks did during a tick:
// segments retention deleted and cleanings of compacted partitions.
type Housekeeping struct {
	Deletions []PartitionDeletion
	Cleanings []PartitionCleaning
}

// PartitionDeletion is one retention deletion on a partition.
type PartitionDeletion struct {
	Topic     string
	Partition int
	AtMs      int64 // virtual time since the cluster started
	log.Deletion
}

// PartitionCleaning is one cleaner run on a partition.
type PartitionCleaning struct {
	Topic     string
	Partition int
	AtMs      int64
	*log.Cleaning
}

// Tick advances virtual time. Like Kafka's broker scheduler, it runs the
// retention check every log.retention.check.interval.ms and the log cleaner
// every log.cleaner.backoff.ms, at exactly those virtual instants, so a
// lesson can say "five minutes later, the expired segments are gone".
func (c *Cluster) Tick(d time.Duration) (Housekeeping, error) {
	var hk Housekeeping
	if d < 0 {
		return hk, fmt.Errorf("cannot move the clock backwards by %v", d)
	}
	end := c.clock.Elapsed() + d
	// The flush Kafka schedules after each roll has run by the next tick.
	if err := c.flushRolled(); err != nil {
		return hk, err
	}
	for {
		next := min(nextMultiple(c.clock.Elapsed(), c.config.RetentionCheckInterval), nextMultiple(c.clock.Elapsed(), c.config.CleanerBackoff))
		if next > end {
			break
		}
		c.clock.Advance(next - c.clock.Elapsed())
		if c.clock.Elapsed()%c.config.RetentionCheckInterval == 0 {
			if err := c.runRetention(&hk); err != nil {
				return hk, err
			}
		}
		if c.clock.Elapsed()%c.config.CleanerBackoff == 0 {
			if err := c.runCleaner(&hk); err != nil {
				return hk, err
			}
		}
	}
	return hk, c.clock.Advance(end - c.clock.Elapsed())
}

// nextMultiple is the first multiple of every strictly after now.
func nextMultiple(now, every time.Duration) time.Duration {
	return (now/every + 1) * every
}

func (c *Cluster) runRetention(hk *Housekeeping) error {
	for _, t := range c.topics {
		for i, l := range t.Partitions {
			dels, err := l.DeleteOldSegments(c.clock.NowMs(), l.EndOffset())
			if err != nil {
				return fmt.Errorf("retention on %s/%d: %w", t.Name, i, err)
			}
			for _, d := range dels {
				hk.Deletions = append(hk.Deletions, PartitionDeletion{Topic: t.Name, Partition: i, AtMs: c.clock.Elapsed().Milliseconds(), Deletion: d})
				t.note(i, fmt.Sprintf("at %v %s deleted %d segment(s); log start offset %d", c.clock.Elapsed(), d.Reason, len(d.Segments), d.NewStartOffset))
			}
		}
	}
	return nil
}

func (c *Cluster) runCleaner(hk *Housekeeping) error {
	for _, t := range c.topics {
		for i, l := range t.Partitions {
			cl, err := l.Clean(c.clock.NowMs())
			if err != nil {
				return fmt.Errorf("cleaning %s/%d: %w", t.Name, i, err)
			}
			if cl != nil {
				hk.Cleanings = append(hk.Cleanings, PartitionCleaning{Topic: t.Name, Partition: i, AtMs: c.clock.Elapsed().Milliseconds(), Cleaning: cl})
				t.note(i, fmt.Sprintf("at %v the cleaner removed %d superseded record(s) and %d tombstone(s)", c.clock.Elapsed(), cl.Superseded, cl.TombstonesRemoved))
			}
		}
	}
	return nil
}

func (c *Cluster) flushRolled() error {
	for _, t := range c.topics {
		for i, l := range t.Partitions {
			if err := l.FlushRolled(); err != nil {
				return fmt.Errorf("flushing %s/%d: %w", t.Name, i, err)
			}
		}
	}
	return nil
}
