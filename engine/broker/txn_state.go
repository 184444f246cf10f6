package broker

import (
	"fmt"
	"slices"
	"time"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/sim"
	"github.com/loglab/loglab/engine/txn/coordinator"
	"github.com/loglab/loglab/engine/txn/txnlog"
)

// txnPart is one __transaction_state partition this broker leads.
type txnPart struct {
	r     *Replica
	epoch int32                  // the leader epoch it was loaded for: the coordinator epoch
	p     *coordinator.Partition // nil while loading
	// pending: requests not answered yet, by ref.
	pending map[uint64]pendingTxnRequest
	// writes: appended records waiting for the high watermark, in offset
	// order.
	writes         []*txnWrite
	load           *sim.Event // cancelled on unload
	retryScheduled bool
}

type pendingTxnRequest struct {
	from sim.NodeID
	req  sim.Message
}

type txnWrite struct {
	id       uint64
	required int64 // the high watermark that commits it
	timeout  *sim.Event
}

// loadTxnCoordinator starts loading a __transaction_state partition this
// broker now leads (TransactionCoordinator.onElection): it is replayed
// from the log in a later event, and meanwhile its transactional ids'
// requests get COORDINATOR_LOAD_IN_PROGRESS.
func (b *Broker) loadTxnCoordinator(r *Replica) {
	if r.TP.Topic != TransactionStateTopic {
		return
	}
	tc := b.txnState()
	if tc.parts[r.TP.Partition] != nil {
		b.unloadTxnCoordinator(r)
	}
	tp := &txnPart{r: r, epoch: r.LeaderEpoch, pending: map[uint64]pendingTxnRequest{}}
	tc.parts[r.TP.Partition] = tp
	cfg := b.txnConfig()
	n := r.Log.EndOffset() - r.Log.StartOffset()
	cost := cfg.LoadBase + time.Duration(n)*cfg.LoadPerRecord
	b.events(fmt.Sprintf("%s: loading %s/%d (offsets %d to %d) as its transaction coordinator, for %v",
		b.Node, TransactionStateTopic, r.TP.Partition, r.Log.StartOffset(), r.Log.EndOffset(), cost))
	tp.load = b.after(cost, "txn-coordinator-load", func() { b.finishTxnLoad(tp) })
}

// finishTxnLoad is loadTransactionsForTxnTopicPartition: replay the log
// (to its end, as Kafka's loader reads it), then resume the markers of
// the transactions found prepared.
func (b *Broker) finishTxnLoad(tp *txnPart) {
	r := tp.r
	if b.txn.parts[r.TP.Partition] != tp || !r.leader {
		return
	}
	cfg := b.txnConfig()
	p := coordinator.New(r.TP.Partition, tp.epoch, cfg.coordinatorConfig())
	recs, err := r.Log.Records(r.Log.StartOffset(), 0)
	if err != nil {
		b.events(fmt.Sprintf("%s: cannot read %s/%d to load it: %v", b.Node, TransactionStateTopic, r.TP.Partition, err))
	}
	var decoded []txnlog.Record
	for _, rec := range recs {
		d, err := txnlog.Decode(rec.Key, rec.Value)
		if err != nil {
			b.events(fmt.Sprintf("%s: %s/%d offset %d: %v", b.Node, TransactionStateTopic, r.TP.Partition, rec.Offset, err))
			continue
		}
		decoded = append(decoded, d)
	}
	if skipped := p.Replay(decoded); skipped > 0 {
		b.events(fmt.Sprintf("%s: %s/%d: %d records with an unknown transaction state skipped", b.Node, TransactionStateTopic, r.TP.Partition, skipped))
	}
	tp.p = p
	b.events(fmt.Sprintf("%s: loaded %s/%d (%d transactional ids, coordinator epoch %d)", b.Node, TransactionStateTopic, r.TP.Partition,
		len(p.TransactionalIDs()), tp.epoch))
	b.applyTxnResult(tp, p.Loaded(b.sched.Clock.NowMs()))
	b.scheduleTxnTimers()
}

// unloadTxnCoordinator gives a partition up (onResignation): every
// request still waiting is answered NOT_COORDINATOR; markers in flight
// are forgotten (the new coordinator sends them again).
func (b *Broker) unloadTxnCoordinator(r *Replica) {
	if r.TP.Topic != TransactionStateTopic || b.txn == nil {
		return
	}
	tp := b.txn.parts[r.TP.Partition]
	if tp == nil {
		return
	}
	delete(b.txn.parts, r.TP.Partition)
	if tp.load != nil {
		tp.load.Cancelled = true
	}
	for _, w := range tp.writes {
		if w.timeout != nil {
			w.timeout.Cancelled = true
		}
	}
	tp.writes = nil
	if tp.p != nil {
		b.sendTxnReplies(tp, tp.p.Unload())
	}
	refs := make([]uint64, 0, len(tp.pending))
	for ref := range tp.pending {
		refs = append(refs, ref)
	}
	slices.Sort(refs)
	for _, ref := range refs {
		pr := tp.pending[ref]
		b.send(pr.from, txnErrorResponse(pr.req, protocol.NotCoordinator))
	}
	tp.pending = map[uint64]pendingTxnRequest{}
	b.dropTxnMarkers(tp)
	b.events(fmt.Sprintf("%s: unloaded %s/%d: no longer its leader (%d waiting requests told NOT_COORDINATOR)",
		b.Node, TransactionStateTopic, r.TP.Partition, len(refs)))
}

// applyTxnResult traces what the coordinator decided, appends its records,
// sends its replies and its markers.
func (b *Broker) applyTxnResult(tp *txnPart, res coordinator.Result) {
	for _, e := range res.Events {
		b.events(fmt.Sprintf("%s: %s", b.Node, e))
	}
	b.sendTxnReplies(tp, res)
	for _, m := range res.Markers {
		b.sendTxnMarkers(tp, m, m.Partitions)
	}
	for _, w := range res.Writes {
		b.appendTxnRecord(tp, w)
	}
	if res.RetryLater && !tp.retryScheduled {
		tp.retryScheduled = true
		b.after(b.txnConfig().RetryBackoff, "txn-log-append-retry", func() {
			tp.retryScheduled = false
			if b.txn.parts[tp.r.TP.Partition] == tp && tp.p != nil {
				b.applyTxnResult(tp, tp.p.RetryCompletions(b.sched.Clock.NowMs()))
			}
		})
	}
}

func (b *Broker) sendTxnReplies(tp *txnPart, res coordinator.Result) {
	for _, rp := range res.Replies {
		pr, ok := tp.pending[rp.Ref]
		if !ok {
			continue
		}
		delete(tp.pending, rp.Ref)
		b.send(pr.from, rp.Msg)
	}
}

// appendTxnRecord writes one record as its own batch, as leader, with
// acks=all (TransactionLog.EnforcedRequiredAcks): refused at once under
// min.insync.replicas, committed when the high watermark passes it, or
// failed with REQUEST_TIMED_OUT after the transaction timeout of the state
// it writes (appendTransactionToLog's delayed produce timeout).
func (b *Broker) appendTxnRecord(tp *txnPart, w coordinator.Write) {
	r := tp.r
	fail := func(code protocol.ErrorCode) {
		b.applyTxnResult(tp, tp.p.WriteCompleted(b.sched.Clock.NowMs(), w.ID, code))
	}
	if code := r.state(b.ID).AppendError(-1); code != protocol.None {
		fail(code)
		return
	}
	k, err := txnlog.EncodeKey(w.Record.Key)
	if err != nil {
		fail(protocol.CorruptMessage)
		return
	}
	v, err := txnlog.EncodeValue(w.Record.ValueVersion, w.Record.Value)
	if err != nil {
		fail(protocol.CorruptMessage)
		return
	}
	now := b.sched.Clock.NowMs()
	batch := record.Batch{Attributes: record.ComputeAttributes(record.None, record.CreateTime, false, false),
		BaseTimestamp: now, MaxTimestamp: now, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1,
		Records: []record.Record{{Key: k, Value: v}}}
	info, err := r.Log.AppendAsLeader(&batch, r.LeaderEpoch)
	if err != nil {
		// NOT_ENOUGH_REPLICAS and KAFKA_STORAGE_ERROR are what the
		// coordinator turns into COORDINATOR_NOT_AVAILABLE for the client.
		fail(appendError(err))
		b.storageFailed(r, "appending records to", err)
		return
	}
	tw := &txnWrite{id: w.ID, required: info.LastOffset + 1}
	timeout := time.Duration(w.TimeoutMs) * time.Millisecond
	if timeout <= 0 {
		timeout = b.txnConfig().RequestTimeout
	}
	tw.timeout = b.after(timeout, "txn-log-append-timeout", func() {
		i := slices.Index(tp.writes, tw)
		if i < 0 || b.txn.parts[r.TP.Partition] != tp {
			return
		}
		tp.writes = slices.Delete(tp.writes, i, i+1)
		fail(protocol.RequestTimedOut)
	})
	tp.writes = append(tp.writes, tw)
	b.completeFetches(r)
	if b.maybeIncrementHW(r) {
		b.onHWChange(r)
	}
}

// completeTxnWrites completes the coordinator writes the high watermark
// now covers (Kafka's delayed produce of appendTransactionToLog).
func (b *Broker) completeTxnWrites(r *Replica) {
	if r.TP.Topic != TransactionStateTopic || b.txn == nil {
		return
	}
	tp := b.txn.parts[r.TP.Partition]
	if tp == nil || tp.r != r || !r.leader || tp.p == nil {
		return
	}
	for len(tp.writes) > 0 {
		w := tp.writes[0]
		done, code := r.state(b.ID).CheckEnoughReplicasReachOffset(r.HW, w.required)
		if !done {
			return
		}
		tp.writes = tp.writes[1:]
		w.timeout.Cancelled = true
		b.applyTxnResult(tp, tp.p.WriteCompleted(b.sched.Clock.NowMs(), w.id, code))
		if b.txn.parts[r.TP.Partition] != tp {
			return
		}
	}
}

// scheduleTxnTimers starts the coordinator's periodic tasks once a
// partition is loaded: abortTimedOutTransactions every
// transaction.abort.timed.out.transaction.cleanup.interval.ms and
// removeExpiredTransactionalIds every
// transaction.remove.expired.transaction.cleanup.interval.ms, over every
// loaded partition (one scheduler task each, as Kafka's).
func (b *Broker) scheduleTxnTimers() {
	tc := b.txnState()
	cfg := b.txnConfig()
	if tc.abortTick == nil {
		b.txnEvery(cfg.AbortTimedOutInterval, "transaction-abort", &tc.abortTick, func(tp *txnPart, now int64) coordinator.Result {
			return tp.p.AbortTimedOutTransactions(now)
		})
	}
	if tc.expireTick == nil {
		b.txnEvery(cfg.RemoveExpiredInterval, "transactionalId-expiration", &tc.expireTick, func(tp *txnPart, now int64) coordinator.Result {
			return tp.p.ExpireTransactionalIDs(now)
		})
	}
}

// txnEvery runs task on every loaded partition, in partition order, every
// d, keeping its next event in *slot; it stops (nil slot) once no
// partition is left.
func (b *Broker) txnEvery(d time.Duration, name string, slot **sim.Event, task func(tp *txnPart, now int64) coordinator.Result) {
	*slot = b.after(d, name, func() {
		tc := b.txnState()
		ps := make([]int32, 0, len(tc.parts))
		for p := range tc.parts {
			ps = append(ps, p)
		}
		if len(ps) == 0 {
			*slot = nil
			return
		}
		slices.Sort(ps)
		for _, p := range ps {
			if tp := tc.parts[p]; tp != nil && tp.p != nil {
				b.applyTxnResult(tp, task(tp, b.sched.Clock.NowMs()))
			}
		}
		b.txnEvery(d, name, slot, task)
	})
}
