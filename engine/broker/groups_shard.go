package broker

import (
	"fmt"
	"slices"
	"time"

	"github.com/loglab/loglab/engine/group/coordinator"
	"github.com/loglab/loglab/engine/group/offsets"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/sim"
)

// coordShard is one __consumer_offsets partition this broker leads.
type coordShard struct {
	r     *Replica
	epoch int32              // the leader epoch it was loaded for
	shard *coordinator.Shard // nil while loading
	// pending: requests the shard has not answered yet, or whose answer
	// waits for its records to commit, by ref.
	pending  map[uint64]pendingGroupRequest
	deferred []deferredReplies
	// lastWritten is the log end offset after the shard's last write:
	// every answer waits for the high watermark to reach it.
	lastWritten  int64
	tick         *sim.Event
	tickAt       int64
	load, expiry *sim.Event // cancelled on unload
}

type pendingGroupRequest struct {
	from sim.NodeID
	req  sim.Message
}

type deferredReplies struct {
	required int64
	replies  []coordinator.Reply
}

// loadCoordinator starts loading a __consumer_offsets partition this
// broker now leads (GroupCoordinatorService.onElection): the shard is
// replayed from the log in a later event, LoadBase plus LoadPerRecord
// each later, and meanwhile its groups' requests get
// COORDINATOR_LOAD_IN_PROGRESS.
func (b *Broker) loadCoordinator(r *Replica) {
	if r.TP.Topic != OffsetsTopic {
		return
	}
	g := b.groupState()
	if g.shards[r.TP.Partition] != nil {
		b.unloadCoordinator(r)
	}
	cs := &coordShard{r: r, epoch: r.LeaderEpoch, pending: map[uint64]pendingGroupRequest{}}
	g.shards[r.TP.Partition] = cs
	n := r.Log.EndOffset() - r.Log.StartOffset()
	cost := b.cfg.Groups.LoadBase + time.Duration(n)*b.cfg.Groups.LoadPerRecord
	b.events(fmt.Sprintf("%s: loading %s/%d (offsets %d to %d) as its group coordinator, for %v",
		b.Node, OffsetsTopic, r.TP.Partition, r.Log.StartOffset(), r.Log.EndOffset(), cost))
	cs.load = b.after(cost, "coordinator-load", func() { b.finishLoad(cs) })
}

// finishLoad is CoordinatorLoaderImpl.load: replay every record of the
// log (to its end, as Kafka's loader reads it; what the old leader wrote
// and this one holds will commit), then GroupMetadataManager.onLoaded.
func (b *Broker) finishLoad(cs *coordShard) {
	r := cs.r
	if b.groups.shards[r.TP.Partition] != cs || !r.leader {
		return
	}
	shard := coordinator.New(r.TP.Partition, b.cfg.Groups.coordinatorConfig())
	shard.SetTopics(b.subscribableTopics())
	batches, err := readBatches(r, r.Log.StartOffset())
	if err != nil {
		b.events(fmt.Sprintf("%s: cannot read %s/%d to load it: %v", b.Node, OffsetsTopic, r.TP.Partition, err))
	}
	replayCoordinatorLog(shard, batches)
	stats := shard.Loaded(b.sched.Clock.NowMs())
	cs.shard, cs.lastWritten = shard, r.Log.EndOffset()
	b.events(fmt.Sprintf("%s: loaded %s/%d (%s)", b.Node, OffsetsTopic, r.TP.Partition, stats))
	b.scheduleGroupTick(cs)
	b.scheduleOffsetExpiry(cs)
}

// unloadCoordinator gives a partition up (GroupCoordinatorService.onResignation):
// every request still waiting, parked or waiting for its write to
// commit, is answered NOT_COORDINATOR, so clients find the new one.
func (b *Broker) unloadCoordinator(r *Replica) {
	if r.TP.Topic != OffsetsTopic || b.groups == nil {
		return
	}
	cs := b.groups.shards[r.TP.Partition]
	if cs == nil {
		return
	}
	delete(b.groups.shards, r.TP.Partition)
	if cs.shard != nil {
		cs.shard.Unload(b.sched.Clock.NowMs())
	}
	for _, e := range []*sim.Event{cs.load, cs.expiry, cs.tick} {
		if e != nil {
			e.Cancelled = true
		}
	}
	refs := make([]uint64, 0, len(cs.pending))
	for ref := range cs.pending {
		refs = append(refs, ref)
	}
	slices.Sort(refs)
	for _, ref := range refs {
		p := cs.pending[ref]
		b.send(p.from, coordinator.ErrorResponse(p.req, protocol.NotCoordinator))
	}
	b.events(fmt.Sprintf("%s: unloaded %s/%d: no longer its leader (%d waiting requests told NOT_COORDINATOR)",
		b.Node, OffsetsTopic, r.TP.Partition, len(refs)))
}

// applyGroupResult traces what the shard decided, appends its records as
// one batch and queues its answers until that batch is committed (Kafka's
// CoordinatorRuntime completes a write when the high watermark passes
// it: acks=all).
func (b *Broker) applyGroupResult(cs *coordShard, res coordinator.Result) {
	for _, e := range res.Events {
		b.events(fmt.Sprintf("%s: %s", b.Node, e))
	}
	if len(res.Records) > 0 {
		if err := b.appendGroupRecords(cs, res.Records, res.Txn); err != nil {
			// Kafka reverts the shard to its last committed state and fails
			// the request; loglab keeps the state (see the README), except
			// a transactional commit's, which only counts once appended.
			b.events(fmt.Sprintf("%s: cannot append to %s/%d: %v", b.Node, OffsetsTopic, cs.r.TP.Partition, err))
			for _, rp := range res.Replies {
				if p, ok := cs.pending[rp.Ref]; ok {
					delete(cs.pending, rp.Ref)
					b.send(p.from, coordinator.ErrorResponse(p.req, groupAppendError(err)))
				}
			}
			b.scheduleGroupTick(cs)
			return
		}
	}
	if len(res.Replies) > 0 {
		cs.deferred = append(cs.deferred, deferredReplies{required: cs.lastWritten, replies: res.Replies})
		b.completeGroupWrites(cs.r)
	}
	b.scheduleGroupTick(cs)
}

// appendGroupRecords writes records as one RecordBatch v2, as leader. A
// transactional offset commit is one transactional batch of the producer
// (CoordinatorPartitionWriter.append with its producer id and epoch, no
// sequence: the coordinator, not the producer, writes it), whose records
// the shard then holds as that producer's pending offsets.
func (b *Broker) appendGroupRecords(cs *coordShard, recs []offsets.Record, txn *coordinator.TxnWrite) error {
	now := b.sched.Clock.NowMs()
	batch := record.Batch{Attributes: record.ComputeAttributes(record.None, record.CreateTime, txn != nil, false),
		LastOffsetDelta: int32(len(recs) - 1), BaseTimestamp: now, MaxTimestamp: now,
		ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}
	if txn != nil {
		batch.ProducerID, batch.ProducerEpoch = txn.ProducerID, txn.ProducerEpoch
	}
	for i, rc := range recs {
		k, err := offsets.EncodeKey(rc.Key)
		if err != nil {
			return err
		}
		v, err := offsets.EncodeValue(rc.ValueVersion, rc.Value)
		if err != nil {
			return err
		}
		batch.Records = append(batch.Records, record.Record{OffsetDelta: int32(i), Key: k, Value: v})
	}
	r := cs.r
	info, err := appendCoordinatorBatch(r, &batch)
	if err != nil {
		b.storageFailed(r, "appending records to", err)
		return err
	}
	if txn != nil {
		for i, rc := range recs {
			cs.shard.ReplayRecord(info.FirstOffset+int64(i), txn.ProducerID, rc)
		}
	}
	cs.lastWritten = info.LastOffset + 1
	b.completeFetches(r)
	if b.maybeIncrementHW(r) {
		b.onHWChange(r)
	}
	return nil
}

// completeGroupWrites answers what waited for the high watermark.
func (b *Broker) completeGroupWrites(r *Replica) {
	if r.TP.Topic != OffsetsTopic || b.groups == nil {
		return
	}
	cs := b.groups.shards[r.TP.Partition]
	if cs == nil || cs.r != r || !r.leader {
		return
	}
	for len(cs.deferred) > 0 && r.HW >= cs.deferred[0].required {
		d := cs.deferred[0]
		cs.deferred = cs.deferred[1:]
		for _, rp := range d.replies {
			p, ok := cs.pending[rp.Ref]
			if !ok {
				continue
			}
			delete(cs.pending, rp.Ref)
			b.send(p.from, coordinator.WithCorrelation(rp.Msg, coordinator.CorrelationID(p.req)))
		}
	}
}

// scheduleGroupTick runs the groups' timers at their next deadline.
func (b *Broker) scheduleGroupTick(cs *coordShard) {
	if cs.shard == nil {
		return
	}
	at, ok := cs.shard.NextDeadline()
	if cs.tick != nil && !cs.tick.Cancelled && ok && at == cs.tickAt {
		return
	}
	if cs.tick != nil {
		cs.tick.Cancelled = true
		cs.tick = nil
	}
	if !ok {
		return
	}
	cs.tickAt = at
	d := time.Duration(max(at-b.sched.Clock.NowMs(), 0)) * time.Millisecond
	cs.tick = b.after(d, "group-coordinator-timer", func() {
		if b.groups.shards[cs.r.TP.Partition] != cs {
			return
		}
		cs.tick = nil
		b.applyGroupResult(cs, cs.shard.Tick(b.sched.Clock.NowMs()))
	})
}

// scheduleOffsetExpiry runs the offsets retention check every
// offsets.retention.check.interval.ms while the shard is loaded.
func (b *Broker) scheduleOffsetExpiry(cs *coordShard) {
	cs.expiry = b.after(b.cfg.Groups.OffsetsRetentionCheckInterval, "offsets-retention", func() {
		if b.groups.shards[cs.r.TP.Partition] != cs || cs.shard == nil {
			return
		}
		b.applyGroupResult(cs, cs.shard.ExpireOffsets(b.sched.Clock.NowMs()))
		b.scheduleOffsetExpiry(cs)
	})
}
