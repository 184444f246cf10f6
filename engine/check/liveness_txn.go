package check

import (
	"slices"

	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/producerstate"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/txn/coordinator"
	"github.com/loglab/loglab/engine/txn/txnlog"
)

// TransactionEnded is the transactions' liveness property: after a
// stabilize no transaction stays open for ever. Every partition's last
// stable offset reaches its high watermark, unless a running
// transactional producer holds a transaction open that is younger than
// its transaction.timeout.ms plus one run of the coordinator's timed-out
// transaction check (transaction.abort.timed.out.transaction.cleanup.interval.ms):
// until then the producer may still commit it, and Kafka promises no
// more. A crashed producer's transaction, and a transaction past that
// deadline, must be aborted by the coordinator. And no transaction stays
// in PrepareCommit, PrepareAbort or PrepareEpochFence: its markers must
// be written and answered. A transaction the coordinator has forgotten
// or completed while a partition still holds it open (a hanging
// transaction, which KIP-890 closes) breaks it for good.
const TransactionEnded = "transaction-ended"

// txnLagWalk is what one walk knows of the transactional ids the cluster's
// producers use, in the order they first appear.
type txnLagWalk struct {
	lagWalk
	ids   []string
	descs []txnDesc
}

type txnDesc struct {
	d    coordinator.Description
	code protocol.ErrorCode
}

// txnLags yields the transactions' lags: the partitions whose last stable
// offset a transaction holds below the high watermark, in topic order,
// then the transactional ids stuck in a Prepare state; false when yield
// stopped the walk.
func (w lagWalk) txnLags(yield func(Lag) bool) bool {
	c := w.c
	tw := txnLagWalk{lagWalk: w}
	for _, p := range c.Producers() {
		if id := p.Config().TransactionalID; id != "" && !slices.Contains(tw.ids, id) {
			tw.ids = append(tw.ids, id)
		}
	}
	if t := c.MetadataImage().Topic(broker.TransactionStateTopic); t != nil {
		for _, id := range tw.ids {
			d, code := c.DescribeTransaction(id)
			tw.descs = append(tw.descs, txnDesc{d, code})
		}
	}
	for _, t := range c.MetadataImage().Topics {
		if t.Name == broker.TransactionStateTopic {
			continue
		}
		for i := range t.Partitions {
			tp := protocol.TopicPartition{Topic: t.Name, Partition: int32(i)}
			if !tw.partitionTxnLag(tp, yield) {
				return false
			}
		}
	}
	for i, id := range tw.ids {
		if i < len(tw.descs) && !tw.coordinatorTxnLag(id, tw.descs[i], yield) {
			return false
		}
	}
	return true
}

// abortDeadlineMs is when the coordinator must have begun aborting a
// transaction that started at startMs with timeout timeoutMs: its
// timed-out check runs every AbortTimedOutInterval.
func (w txnLagWalk) abortDeadlineMs(startMs int64, timeoutMs int32) int64 {
	cfg := w.c.TxnConfig()
	if cfg.StateLogNumPartitions == 0 {
		cfg = broker.DefaultTxnConfig()
	}
	return startMs + int64(timeoutMs) + cfg.AbortTimedOutInterval.Milliseconds()
}

// partitionTxnLag is partition tp's lag, if a transaction holds its last
// stable offset below its high watermark. A partition without a running
// leader is the converged property's lag, not this one's.
func (w txnLagWalk) partitionTxnLag(tp protocol.TopicPartition, yield func(Lag) bool) bool {
	c := w.c
	r := c.LeaderReplica(tp)
	if r == nil {
		return true
	}
	lso := r.LastStableOffset()
	if lso >= r.HW {
		return true
	}
	// The oldest open transaction holds the LSO; retention may have moved
	// the log start (and so the LSO) past its first offset.
	holder := -1
	entries := r.Log.Producers()
	for i, e := range entries {
		if e.HasOngoingTxn() && e.CurrentTxnFirstOffset <= lso && (holder < 0 || e.CurrentTxnFirstOffset < entries[holder].CurrentTxnFirstOffset) {
			holder = i
		}
	}
	if holder < 0 {
		// A completed transaction whose marker is above the high
		// watermark: replication must carry the marker below it.
		return yield(Lag{TransactionEnded, w.say("%s's last stable offset %d is below its high watermark %d: a transaction's marker (log end %d) is not below the high watermark yet", name(tp), lso, r.HW, r.Log.EndOffset()),
			w.partitionBlocked(tp)})
	}
	e := entries[holder]
	which := func() string {
		return w.say("%s's last stable offset %d is below its high watermark %d: producer id %d (epoch %d) holds", name(tp), lso, r.HW, e.ProducerID, e.Epoch)
	}
	i := slices.IndexFunc(w.descs, func(d txnDesc) bool { return d.code == protocol.None && d.d.ProducerID == e.ProducerID })
	if i < 0 {
		// No coordinator that answers knows the producer id: one that
		// does not answer may be the one.
		blocked := firstReason(w.uncleanElected(tp), w.markerCleanedBeforeReplicated(tp, r, e))
		for j, d := range w.descs {
			if d.code != protocol.None {
				blocked = firstReason(blocked, w.txnCoordinatorBlocked(w.ids[j], d.code))
			}
		}
		return yield(Lag{TransactionEnded, which() + w.say(" a transaction from offset %d that no transaction coordinator knows", e.CurrentTxnFirstOffset), blocked})
	}
	id, d := w.ids[i], w.descs[i].d
	now := c.NowMs()
	switch {
	// The coordinator's epoch may be one above the data's: a timed-out
	// abort bumps it in memory before its PrepareAbort write (Kafka's
	// prepareFenceProducerEpoch), and keeps it when that write fails
	// (hasFailedEpochFence), the transaction staying Ongoing.
	case d.State == txnlog.Ongoing && (e.Epoch == d.ProducerEpoch || e.Epoch+1 == d.ProducerEpoch) && slices.Contains(d.Partitions, tp):
		if now < w.abortDeadlineMs(d.TransactionStartTimeMs, d.TransactionTimeoutMs) && w.runningInstance(id, e.ProducerID, e.Epoch) != nil {
			return true // its producer may still commit it: Kafka waits transaction.timeout.ms
		}
		what := w.say(" transactional id %s's transaction open since %d ms (transaction.timeout.ms=%d)", id, d.TransactionStartTimeMs, d.TransactionTimeoutMs)
		if w.describe && w.runningInstance(id, e.ProducerID, e.Epoch) == nil {
			what += ", whose producer is gone"
		}
		if w.describe && now >= w.abortDeadlineMs(d.TransactionStartTimeMs, d.TransactionTimeoutMs) {
			what += ": the coordinator has not aborted it"
		}
		return yield(Lag{TransactionEnded, which() + what, w.txnCoordinatorBlocked(id, protocol.None)})
	case d.State == txnlog.PrepareCommit || d.State == txnlog.PrepareAbort || d.State == txnlog.PrepareEpochFence || d.PendingState != "":
		return yield(Lag{TransactionEnded, which() + w.say(" transactional id %s's transaction, which its coordinator has in %s", id, d.State),
			firstReason(w.txnCoordinatorBlocked(id, protocol.None), w.markersBlocked(d.CoordinatorID, d.Partitions))})
	}
	return yield(Lag{TransactionEnded, which() + w.say(" a transaction from offset %d that its coordinator has %s at epoch %d (a hanging transaction)", e.CurrentTxnFirstOffset, d.State, d.ProducerEpoch),
		firstReason(w.uncleanElected(tp), w.markerCleanedBeforeReplicated(tp, r, e), w.txnCoordinatorBlocked(id, protocol.None))})
}

// coordinatorTxnLag is a transactional id's lag at its coordinator: a
// transaction stuck in a Prepare state (its markers unanswered), or
// Ongoing past the deadline by which the coordinator must abort it.
func (w txnLagWalk) coordinatorTxnLag(id string, td txnDesc, yield func(Lag) bool) bool {
	c := w.c
	d := td.d
	switch {
	case td.code == protocol.TransactionalIDNotFound:
		return true
	case td.code != protocol.None:
		blocked := w.txnCoordinatorBlocked(id, td.code)
		if blocked == "" && td.code != protocol.CoordinatorLoadInProgress {
			blocked = w.say("its coordinator answers %s", td.code.Name())
		}
		return yield(Lag{TransactionEnded, w.say("transactional id %s's coordinator does not answer: %s", id, td.code.Name()), blocked})
	case d.State == txnlog.PrepareCommit || d.State == txnlog.PrepareAbort || d.State == txnlog.PrepareEpochFence:
		return yield(Lag{TransactionEnded, w.say("transactional id %s is %s (producer id %d, epoch %d): its markers to %s are not all answered", id, d.State, d.ProducerID, d.ProducerEpoch, tpList(d.Partitions)),
			firstReason(w.txnCoordinatorBlocked(id, protocol.None), w.markersBlocked(d.CoordinatorID, d.Partitions))})
	case d.PendingState != "":
		return yield(Lag{TransactionEnded, w.say("transactional id %s is %s, writing %s to %s", id, d.State, d.PendingState, broker.TransactionStateTopic),
			w.txnCoordinatorBlocked(id, protocol.None)})
	case d.State == txnlog.Ongoing && c.NowMs() >= w.abortDeadlineMs(d.TransactionStartTimeMs, d.TransactionTimeoutMs):
		return yield(Lag{TransactionEnded, w.say("transactional id %s's transaction open since %d ms is past transaction.timeout.ms=%d and the timed-out check: not aborted", id, d.TransactionStartTimeMs, d.TransactionTimeoutMs),
			w.txnCoordinatorBlocked(id, protocol.None)})
	}
	return true
}

// runningInstance is the running producer of transactional id whose
// producer id and epoch are pid and epoch, or nil: one that crashed (or
// was fenced: a newer epoch) cannot end the transaction.
func (w txnLagWalk) runningInstance(id string, pid int64, epoch int16) *client.Producer {
	for _, p := range w.c.Producers() {
		if p.Crashed() || p.Config().TransactionalID != id {
			continue
		}
		if ppid, pepoch := p.ProducerIDAndEpoch(); ppid == pid && pepoch == epoch {
			return p
		}
	}
	return nil
}

// txnCoordinatorBlocked is the fault keeping transactional id's
// coordinator from acting: its __transaction_state partition without a
// leader, or lagging behind a fault, as coordinatorBlocked says for a
// group's.
func (w txnLagWalk) txnCoordinatorBlocked(id string, code protocol.ErrorCode) string {
	c := w.c
	t := c.MetadataImage().Topic(broker.TransactionStateTopic)
	part := c.TxnPartition(id)
	if t == nil || part < 0 || int(part) >= len(t.Partitions) || t.Partitions[part] == nil {
		return ""
	}
	reason := w.partitionBlocked(protocol.TopicPartition{Topic: broker.TransactionStateTopic, Partition: part})
	if reason == "" {
		return ""
	}
	return w.say("its transaction coordinator (%s/%d): %s", broker.TransactionStateTopic, part, reason)
}

// markersBlocked is the fault keeping a transaction's markers from being
// written: a partition of it whose leader cannot be elected, cannot
// replicate, or that the coordinator (broker coord) cannot reach.
func (w txnLagWalk) markersBlocked(coord int32, tps []protocol.TopicPartition) string {
	c := w.c
	cb := c.Broker(int(coord))
	for _, tp := range tps {
		if reason := w.partitionBlocked(tp); reason != "" {
			return w.say("markers unanswered: %s: %s", name(tp), reason)
		}
		pi := c.MetadataImage().Partition(tp.Topic, tp.Partition)
		if cb == nil || pi == nil || pi.Leader <= 0 {
			continue
		}
		if lb := c.Broker(int(pi.Leader)); lb != nil && lb.Alive() && !c.Connected(cb.Node, lb.Node) {
			return w.say("markers unanswered: %s cuts the coordinator b%d off from %s's leader b%d", c.Separator(cb.Node, lb.Node), coord, name(tp), lb.ID)
		}
	}
	return c.NetFaultWords()
}

// uncleanElected is what excuses a transaction a partition holds open for
// ever after an unclean election: the new leader may lack the marker the
// old one wrote and acknowledged, so the transaction hangs there, as it
// does in Kafka (whose operators end it with kafka-transactions.sh abort).
// The checker stops reading such a partition's history for the same
// reason (engine/check/txn.go).
func (w lagWalk) uncleanElected(tp protocol.TopicPartition) string {
	if !w.k.UncleanElected(tp) {
		return ""
	}
	return w.say("an unclean election on %s may have lost the transaction's marker (kafka-transactions.sh abort ends such a hanging transaction)", name(tp))
}

// markerCleanedBeforeReplicated is what excuses a transaction that the
// leader replica r of tp holds open for ever because the marker ending it
// reached r empty: the producer's control batch above the transaction's
// first offset is in r's log with its record cleaned away. Kafka's cleaner
// keeps an ABORT marker until the transaction's batches are gone from its
// own log (CleanedTransactionMetadata.onControlBatchRead: "Retain the
// marker until all batches from the transaction have been removed"), then
// sets its delete horizon and, delete.retention.ms later, drops its record
// (discardBatchRecords needs deleteHorizonMs <= now; a COMMIT marker goes
// the same way once no batch of its transaction is traversed), keeping
// the batch empty when it is the producer's last (isBatchLastRecordOfProducer).
// Nothing holds that back for a replica that still has the transaction's
// batches but not yet the marker: a follower cut off, or one whose
// unflushed tail a power cut took (the marker with it, the flushed data
// staying), that fetches again after the leader's cleaner emptied the
// marker. It appends the empty control batch, and
// ProducerAppendInfo.append skips it ("An empty control batch means the
// entire transaction has been cleaned from the log, so no need to
// append"), so the transaction stays open in that replica's producer
// state; once it leads, its last stable offset stays at the transaction's
// first offset. Kafka has the same hanging transaction, which its
// operators end with kafka-transactions.sh abort: delete.retention.ms
// bounds how long a replica may lag behind the cleaner, as it bounds a
// consumer's read from offset 0. A replica's own cleaner never empties a
// marker above batches of its transaction that it keeps, so an empty one
// above the open transaction's first offset was appended empty.
func (w lagWalk) markerCleanedBeforeReplicated(tp protocol.TopicPartition, r *broker.Replica, e producerstate.Entry) string {
	var at int64 = -1
	_ = r.Log.EachValidBatch(e.CurrentTxnFirstOffset, r.Log.EndOffset(), func(h record.BatchHeader, _ []byte) bool {
		if h.IsControl() && h.ProducerID == e.ProducerID && h.ProducerEpoch >= e.Epoch && h.RecordCount == 0 && h.BaseOffset > e.CurrentTxnFirstOffset {
			at = h.BaseOffset
			return false
		}
		return true
	})
	if at < 0 {
		return ""
	}
	leader := int32(0)
	if pi := w.c.MetadataImage().Partition(tp.Topic, tp.Partition); pi != nil {
		leader = pi.Leader
	}
	return w.say("%s's leader b%d holds producer id %d's marker at offset %d as an empty control batch: the leader it replicated from had cleaned its record away (delete.retention.ms=%d) before b%d fetched it, and Kafka's ProducerAppendInfo skips an empty control batch, so the transaction hangs there (kafka-transactions.sh abort ends such a hanging transaction)",
		name(tp), leader, e.ProducerID, at, r.Log.Config().DeleteRetentionMs, leader)
}

// partitionBlocked is the fault excusing tp's first converged lag, if any.
func (w lagWalk) partitionBlocked(tp protocol.TopicPartition) string {
	c := w.c
	t := c.MetadataImage().Topic(tp.Topic)
	if t == nil || int(tp.Partition) >= len(t.Partitions) || t.Partitions[tp.Partition] == nil {
		return ""
	}
	noController := ""
	if c.ActiveController() == 0 {
		noController = w.say("no active controller: %d of %d controllers run", c.ControllersUp(), c.Controllers())
	}
	reason := ""
	w.partitionLags(t, tp, t.Partitions[tp.Partition], noController, func(l Lag) bool {
		reason = l.Blocked
		return false
	})
	return firstReason(reason, w.underMinISR(tp))
}

// UnderMinISR is what keeps an acks=all write to tp from committing for
// want of running replicas (underMinISR); "" when enough run.
func (k *Checker) UnderMinISR(tp protocol.TopicPartition) string {
	return lagWalk{k.c, k, true}.underMinISR(tp)
}

// underMinISR is the fault keeping tp's high watermark where it is, so
// that no acks=all write to it commits (a coordinator's record, a
// marker): fewer of its replicas run than its effective
// min.insync.replicas (Partition.effectiveMinIsr). Kafka gives such a
// write two ways to be stuck, and both last as long as the crashes do:
//
//   - the leader's ISR is below the minimum: since KAFKA-15583 (Kafka 3.7)
//     the high watermark does not move, and appendRecordsToLeader refuses
//     new acks=all writes with NOT_ENOUGH_REPLICAS;
//   - the ISR the leader holds is not below it, so it must count a replica
//     that is down (more members than replicas run): maybeIncrementLeaderHW
//     waits for that member's fetch, which never comes, until the leader's
//     shrink commits, and then the first case holds. A leader whose
//     metadata is cut off may never see its ISR shrink (the controller
//     refuses an AlterPartition at a stale partition epoch,
//     INVALID_UPDATE_VERSION), and its writes keep timing out.
//
// While enough replicas run, the followers catching up rejoin the ISR in
// time: no fault.
func (w lagWalk) underMinISR(tp protocol.TopicPartition) string {
	c := w.c
	r := c.LeaderReplica(tp)
	if r == nil {
		return ""
	}
	minISR := min(r.MinISR, len(r.Replicas))
	live := 0
	for _, id := range r.Replicas {
		if w.brokerLive(id) {
			live++
		}
	}
	if live >= minISR {
		return ""
	}
	if len(r.ISR) < minISR {
		return w.say("%s's ISR (%s) is below min.insync.replicas=%d and only %d of its replicas run, so its high watermark stands still (KAFKA-15583)",
			name(tp), protocol.JoinIDs(r.ISR), minISR, live)
	}
	return w.say("%s has %d of its replicas (%s) running, fewer than min.insync.replicas=%d, so its leader's ISR (%s) counts a replica that is down and its high watermark waits for it",
		name(tp), live, protocol.JoinIDs(r.Replicas), minISR, protocol.JoinIDs(r.ISR))
}

func tpList(tps []protocol.TopicPartition) string {
	s := ""
	for i, tp := range tps {
		if i > 0 {
			s += ","
		}
		s += name(tp)
	}
	return s
}
