package broker

import "fmt"

// runRetention is the log.retention.check.interval.ms task: delete expired
// segments of every hosted partition, never past the high watermark on a
// leader (a follower uses its own, leader-given, high watermark).
func (b *Broker) runRetention() {
	now := b.sched.Clock.NowMs()
	b.maybeRemoveExpiredProducers()
	for _, r := range b.replicas {
		dels, err := r.Log.DeleteOldSegments(now, r.HW)
		if err != nil && b.storageFailed(r, "deleting segments of", err) {
			continue
		}
		if err != nil {
			b.events(fmt.Sprintf("%s: retention on %s/%d failed: %v", b.Node, r.TP.Topic, r.TP.Partition, err))
			continue
		}
		for _, d := range dels {
			b.events(fmt.Sprintf("%s: %s deleted %d segment(s) of %s/%d; log start offset is now %d", b.Node, d.Reason, len(d.Segments), r.TP.Topic, r.TP.Partition, d.NewStartOffset))
		}
	}
}

// runCleaner is the log cleaner's pass over compacted partitions. It also
// does the flush Kafka schedules after each segment roll.
func (b *Broker) runCleaner() {
	now := b.sched.Clock.NowMs()
	for _, r := range b.replicas {
		if err := r.Log.FlushRolled(); b.storageFailed(r, "flushing", err) {
			continue
		}
		// The cleaner never goes past the last stable offset: an undecided
		// transaction's records (and its marker) must stay as written.
		c, err := r.Log.CleanUpTo(now, r.LastStableOffset())
		if err != nil && b.storageFailed(r, "cleaning", err) {
			continue
		}
		if err != nil {
			b.events(fmt.Sprintf("%s: cleaning %s/%d failed: %v", b.Node, r.TP.Topic, r.TP.Partition, err))
			continue
		}
		if c != nil {
			txn := ""
			if c.TxnRecordsRemoved > 0 {
				txn = fmt.Sprintf(", %d record(s) of aborted transactions or expired markers", c.TxnRecordsRemoved)
			}
			b.events(fmt.Sprintf("%s: the cleaner compacted %s/%d (dirty ratio %.2f): removed %d superseded record(s) and %d tombstone(s)%s, %d -> %d bytes",
				b.Node, r.TP.Topic, r.TP.Partition, c.DirtyRatio, c.Superseded, c.TombstonesRemoved, txn, c.BytesBefore, c.BytesAfter))
		}
	}
}

// maybeRemoveExpiredProducers is the producer.id.expiration.check.interval.ms
// task (UnifiedLog's PeriodicProducerExpirationCheck): every hosted
// partition forgets the producers idle for producer.id.expiration.ms.
// Kafka schedules it on its own; loglab runs it from the retention task
// once the interval has passed, so it adds no event to the simulation
// (with the defaults, 10 min and 5 min, it runs at the same times).
func (b *Broker) maybeRemoveExpiredProducers() {
	interval := b.cfg.ProducerIDExpirationCheckInterval
	if interval <= 0 || b.sched.Clock.Elapsed()-b.lastProducerExpiration < interval {
		return
	}
	b.lastProducerExpiration = b.sched.Clock.Elapsed()
	now := b.sched.Clock.NowMs()
	for _, r := range b.replicas {
		r.Log.RemoveExpiredProducers(now, b.cfg.ProducerIDExpiration.Milliseconds())
	}
}
