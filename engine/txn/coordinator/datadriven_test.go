package coordinator

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/txn/txnlog"
	"github.com/loglab/loglab/internal/datadriven"
)

// TestDataDriven replays testdata/*.txt: each case drives one
// __transaction_state partition (partition 7, coordinator epoch 3) the way
// a broker does, with commands named after the requests and the
// coordinator's methods, and prints what each call decided (replies,
// records to write, markers to send, events) and then every transactional
// id's state. Producer ids are handed out from 1000 on when asked.
//
//	ready [id=tx]      the id initialized and committed: producer id 1000, epoch 0
//	ongoing [id=tx]    ready, plus a transaction with t/0 and t/1 started at time 0
//	init id= [pid=-1] [epoch=-1] [timeout=60000]     InitProducerId
//	add id= pid= epoch= partitions=t/0,... [verify-only]   AddPartitionsToTxn
//	end id= pid= epoch= commit|abort                 EndTxn
//	commit-writes      the high watermark passes every waiting write, in order
//	fail-write error=  the oldest waiting write fails with a produce error
//	write-markers      every requested marker is written (MarkerWritten)
//	marker-written id= pid= epoch= partition=        one marker
//	time MS            the virtual clock moves to MS
//	abort-timed-out    abortTimedOutTransactions
//	expire-ids         removeExpiredTransactionalIds
//	retry-completions  the retry of failed Complete* writes
//	unload             onResignation
//	tombstone id=      a tombstone for id lands in the partition's log
//	load coordinator-epoch=   a new coordinator replays the committed log (loadTransactionsForTxnTopicPartition)
//	set-epoch id= epoch=      the id's epoch, set directly (to reach exhaustion)
//	describe id=       DescribeTransactions
func TestDataDriven(t *testing.T) {
	datadriven.Run(t, "testdata/coordinator.txt", newDDCase)
}

func newDDCase(t *testing.T) datadriven.Handler {
	h := newHarness(t)
	printed := 0
	return func(t *testing.T, c *datadriven.Cmd) string {
		var out []string
		flush := func() {
			for ; printed < len(h.trail); printed++ {
				out = append(out, ddResult(h.trail[printed])...)
			}
		}
		status := true
		switch c.Name {
		case "init":
			id, pid, epoch := c.Str("id", "tx"), c.Int(t, "pid", -1), int16(c.Int(t, "epoch", -1))
			timeout := int32(c.Int(t, "timeout", 60000))
			ref := h.call(func(ref uint64, newPID int64) Result {
				return h.p.InitProducerID(h.now, ref, protocol.InitProducerIdRequest{TransactionalID: id, TransactionTimeoutMs: timeout,
					ProducerID: pid, ProducerEpoch: epoch}, newPID)
			})
			out = append(out, fmt.Sprintf("InitProducerId #%d", ref))
		case "ready", "ongoing":
			id := c.Str("id", "tx")
			h.init(id, -1, -1)
			h.commitAll()
			if c.Name == "ongoing" {
				h.add(id, 1000, 0, tp0, tp1)
				h.commitAll()
			}
			printed = len(h.trail)
		case "add":
			h.ref++
			req := protocol.AddPartitionsToTxnRequest{TransactionalID: c.Str("id", "tx"), ProducerID: c.Int(t, "pid", 1000),
				ProducerEpoch: int16(c.Int(t, "epoch", 0)), Partitions: ddTPs(t, c.List("partitions")), VerifyOnly: c.Has("verify-only")}
			out = append(out, fmt.Sprintf("AddPartitionsToTxn #%d", h.ref))
			h.apply(h.p.AddPartitions(h.now, h.ref, req))
		case "end":
			w := c.Words()
			if len(w) != 1 || (w[0] != "commit" && w[0] != "abort") {
				t.Fatalf("%s: end needs commit or abort", c.Pos)
			}
			ref := h.end(c.Str("id", "tx"), c.Int(t, "pid", 1000), int16(c.Int(t, "epoch", 0)), w[0] == "commit")
			out = append(out, fmt.Sprintf("EndTxn #%d", ref))
		case "commit-writes":
			if len(h.writes) == 0 {
				out = append(out, "no write waiting")
			}
			for len(h.writes) > 0 {
				flush()
				w := h.writes[0]
				h.writes = h.writes[1:]
				h.log = append(h.log, w.Record)
				out = append(out, fmt.Sprintf("w%d committed", w.ID))
				h.apply(h.p.WriteCompleted(h.now, w.ID, protocol.None))
			}
		case "fail-write":
			code := ddCode(t, c.Str("error", ""))
			w := h.writes[0]
			h.writes = h.writes[1:]
			out = append(out, fmt.Sprintf("w%d failed: %s", w.ID, code.Name()))
			h.apply(h.p.WriteCompleted(h.now, w.ID, code))
		case "write-markers":
			for _, m := range h.markers {
				for _, tp := range m.Partitions {
					out = append(out, fmt.Sprintf("marker written: %s %s", m.TransactionalID, ddTP(tp)))
				}
			}
			h.markAll()
		case "marker-written":
			tp := ddTPs(t, []string{c.Str("partition", "")})[0]
			h.apply(h.p.MarkerWritten(h.now, c.Str("id", "tx"), c.Int(t, "pid", 1000), int16(c.Int(t, "epoch", 0)), tp))
		case "time":
			w := c.Words()
			if len(w) != 1 {
				t.Fatalf("%s: time MS", c.Pos)
			}
			ms, err := strconv.ParseInt(w[0], 10, 64)
			if err != nil {
				t.Fatalf("%s: %v", c.Pos, err)
			}
			h.now = ms
			status = false
			out = append(out, fmt.Sprintf("now %d", h.now))
		case "abort-timed-out":
			h.apply(h.p.AbortTimedOutTransactions(h.now))
		case "expire-ids":
			h.apply(h.p.ExpireTransactionalIDs(h.now))
		case "retry-completions":
			h.retry = false
			h.apply(h.p.RetryCompletions(h.now))
		case "unload":
			h.apply(h.p.Unload())
		case "tombstone":
			h.log = append(h.log, txnlog.Record{Key: txnlog.Key{TransactionalID: c.Str("id", "")}})
		case "load":
			h.p = New(7, int32(c.Int(t, "coordinator-epoch", 4)), DefaultConfig())
			h.writes, h.markers = nil, nil
			skipped := h.p.Replay(h.log)
			out = append(out, fmt.Sprintf("replayed %d records (%d skipped)", len(h.log), skipped))
			h.apply(h.p.Loaded(h.now))
		case "set-epoch":
			h.state(c.Str("id", "tx")).ProducerEpoch = int16(c.Int(t, "epoch", 0))
		case "describe":
			status = false
			d, code := h.p.Describe(c.Str("id", "tx"))
			if code != protocol.None {
				out = append(out, code.Name())
				break
			}
			out = append(out, fmt.Sprintf("%s state=%s pending=%q pid=%d epoch=%d timeout=%d start=%d partitions=%s coordinator-epoch=%d",
				d.TransactionalID, d.State, d.PendingState, d.ProducerID, d.ProducerEpoch, d.TransactionTimeoutMs,
				d.TransactionStartTimeMs, ddTPList(d.Partitions), d.CoordinatorEpoch))
		default:
			t.Fatalf("%s: unknown command %q", c.Name, c.Pos)
		}
		flush()
		if status {
			for _, id := range h.p.TransactionalIDs() {
				out = append(out, ddState(h.p.Get(id)))
			}
			if n := len(h.writes); n > 0 {
				out = append(out, fmt.Sprintf("%d write(s) waiting", n))
			}
		}
		return strings.Join(out, "\n")
	}
}

func ddResult(r Result) []string {
	var out []string
	for _, e := range r.Events {
		out = append(out, "  event: "+e)
	}
	for _, w := range r.Writes {
		out = append(out, fmt.Sprintf("  write w%d: %s (timeout %d ms)", w.ID, ddRecord(w.Record), w.TimeoutMs))
	}
	for _, rp := range r.Replies {
		out = append(out, fmt.Sprintf("  reply #%d: %s", rp.Ref, ddReply(rp.Msg)))
	}
	for _, m := range r.Markers {
		kind := "ABORT"
		if m.Committed {
			kind = "COMMIT"
		}
		out = append(out, fmt.Sprintf("  markers: %s %s pid=%d epoch=%d to %s (coordinator epoch %d, transaction version %d)",
			kind, m.TransactionalID, m.ProducerID, m.ProducerEpoch, ddTPList(m.Partitions), m.CoordinatorEpoch, m.TransactionVersion))
	}
	if r.RetryLater {
		out = append(out, "  retry later")
	}
	return out
}

func ddRecord(r txnlog.Record) string {
	v := r.Value
	if v == nil {
		return r.Key.TransactionalID + " tombstone"
	}
	s := fmt.Sprintf("%s %s pid=%d epoch=%d", r.Key.TransactionalID, v.TransactionStatus, v.ProducerID, v.ProducerEpoch)
	if v.PreviousProducerID != -1 {
		s += fmt.Sprintf(" previous-pid=%d", v.PreviousProducerID)
	}
	if v.NextProducerID != -1 {
		s += fmt.Sprintf(" next-pid=%d", v.NextProducerID)
	}
	if v.TransactionPartitions == nil {
		s += " partitions=null"
	} else {
		var tps []string
		for _, tp := range v.TransactionPartitions {
			for _, p := range tp.PartitionIDs {
				tps = append(tps, fmt.Sprintf("%s/%d", tp.Topic, p))
			}
		}
		s += " partitions=[" + strings.Join(tps, " ") + "]"
	}
	return s + fmt.Sprintf(" start=%d", v.TransactionStartTimestampMs)
}

func ddReply(msg any) string {
	switch r := msg.(type) {
	case protocol.InitProducerIdResponse:
		return fmt.Sprintf("InitProducerId %s pid=%d epoch=%d", r.Error.Name(), r.ProducerID, r.ProducerEpoch)
	case protocol.EndTxnResponse:
		return fmt.Sprintf("EndTxn %s pid=%d epoch=%d", r.Error.Name(), r.ProducerID, r.ProducerEpoch)
	case protocol.AddPartitionsToTxnResponse:
		s := "AddPartitionsToTxn"
		for _, x := range r.Results {
			s += fmt.Sprintf(" %s:%s", ddTP(x.TP), x.Error.Name())
		}
		return s
	}
	return fmt.Sprintf("%T %+v", msg, msg)
}

func ddState(m *Metadata) string {
	s := fmt.Sprintf("%s: %s pid=%d epoch=%d", m.TransactionalID, m.State, m.ProducerID, m.ProducerEpoch)
	if m.PreviousProducerID != -1 {
		s += fmt.Sprintf(" previous-pid=%d", m.PreviousProducerID)
	}
	if m.NextProducerID != -1 {
		s += fmt.Sprintf(" next-pid=%d", m.NextProducerID)
	}
	s += fmt.Sprintf(" partitions=%s start=%d", ddTPList(m.Partitions), m.TxnStartTimestamp)
	if m.PendingTransitionInProgress() {
		s += " pending=" + m.pendingTo.String()
	}
	return s
}

func ddTP(tp protocol.TopicPartition) string { return fmt.Sprintf("%s/%d", tp.Topic, tp.Partition) }

func ddTPList(tps []protocol.TopicPartition) string {
	s := make([]string, len(tps))
	for i, tp := range tps {
		s[i] = ddTP(tp)
	}
	return "[" + strings.Join(s, " ") + "]"
}

func ddTPs(t *testing.T, ss []string) []protocol.TopicPartition {
	var out []protocol.TopicPartition
	for _, s := range ss {
		topic, p, ok := strings.Cut(s, "/")
		n, err := strconv.Atoi(p)
		if !ok || err != nil {
			t.Fatalf("partition %q: want topic/N", s)
		}
		out = append(out, protocol.TopicPartition{Topic: topic, Partition: int32(n)})
	}
	return out
}

// ddCode is the error code Kafka names name.
func ddCode(t *testing.T, name string) protocol.ErrorCode {
	for c := protocol.ErrorCode(-1); c < 200; c++ {
		if c.Name() == name && name != "UNKNOWN_SERVER_ERROR" {
			return c
		}
	}
	t.Fatalf("no error code named %q", name)
	return 0
}
