package cluster

import (
	"fmt"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/record"
)

// txnProducerCluster is 3 brokers and topic "out" (2 partitions, rf 3).
func txnProducerCluster(t *testing.T) *Cluster {
	t.Helper()
	c := newTestCluster(t, 13)
	if err := c.CreateTopic("out", 2, 3, [][2]string{{"min.insync.replicas", "2"}}); err != nil {
		t.Fatal(err)
	}
	return c
}

func txnProducer(t *testing.T, c *Cluster, name string) *client.Producer {
	t.Helper()
	cfg := client.DefaultProducerConfig()
	cfg.EnableIdempotence = true
	cfg.TransactionalID = "tx"
	if err := cfg.ValidateIdempotence(func(k string) bool { return k == "transactional.id" }); err != nil {
		t.Fatal(err)
	}
	p, err := c.CreateProducer(name, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func waitOp(t *testing.T, c *Cluster, what string, op *client.TxnOp) {
	t.Helper()
	if ok, err := c.RunUntil(func() bool { return op.Done }, 2*time.Minute); err != nil || !ok {
		t.Fatalf("%s never completed (%v)", what, err)
	}
}

// markers lists the control batches of a partition's leader log as
// "COMMIT@epoch" / "ABORT@epoch", and counts its transactional data batches.
func markers(t *testing.T, c *Cluster, partition int) (out []string, data int) {
	t.Helper()
	l, err := c.Partition("out", partition)
	if err != nil {
		t.Fatal(err)
	}
	infos, err := l.BatchesFrom(0)
	if err != nil {
		t.Fatal(err)
	}
	for _, bi := range infos {
		if !bi.Header.IsControl() {
			if bi.Header.IsTransactional() {
				data++
			}
			continue
		}
		raw, err := l.RawBatch(bi.Segment, bi.Position)
		if err != nil {
			t.Fatal(err)
		}
		b, _, err := record.Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		m, err := record.ParseControlRecord(b.Records[0])
		if err != nil {
			t.Fatal(err)
		}
		kind := "ABORT"
		if m.Type == record.Commit {
			kind = "COMMIT"
		}
		out = append(out, fmt.Sprintf("%s@%d", kind, b.ProducerEpoch))
	}
	return out, data
}

// A transaction across two partitions commits: each partition gets the
// transactional batch and a COMMIT marker written by the coordinator with
// the epoch bumped (transaction version 2), which the producer takes for
// its next transaction; an abort drops the unsent and marks the sent.
func TestTransactionalProducerCommitAndAbortWriteMarkers(t *testing.T) {
	c := txnProducerCluster(t)
	p := txnProducer(t, c, "p")
	waitOp(t, c, "initTransactions", p.InitTransactions())
	if _, epoch := p.ProducerIDAndEpoch(); epoch != 0 || p.TxnState() != "READY" {
		t.Fatalf("after initTransactions epoch %d state %s", epoch, p.TxnState())
	}
	if err := p.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	ds := c.Send(p, "out", []Message{{Value: []byte("a"), Partition: 0}, {Value: []byte("b"), Partition: 1}})
	commit := p.CommitTransaction()
	waitOp(t, c, "commitTransaction", commit)
	if commit.Err != protocol.None || ds[0].Err != protocol.None || ds[1].Err != protocol.None {
		t.Fatalf("commit %s %q, deliveries %s %s", commit.Err.Name(), commit.Message, ds[0].Err.Name(), ds[1].Err.Name())
	}
	if _, epoch := p.ProducerIDAndEpoch(); epoch != 1 {
		t.Fatalf("epoch %d after the commit, want 1 (bumped by EndTxn)", epoch)
	}
	if ok, err := c.RunUntil(func() bool { m0, _ := markers(t, c, 0); m1, _ := markers(t, c, 1); return len(m0) == 1 && len(m1) == 1 }, time.Minute); err != nil || !ok {
		t.Fatal("the COMMIT markers never reached both partitions")
	}
	for part := range 2 {
		if m, data := markers(t, c, part); len(m) != 1 || m[0] != "COMMIT@1" || data != 1 {
			t.Fatalf("partition %d: markers %v, %d transactional batches; want [COMMIT@1] after 1", part, m, data)
		}
	}

	p.BeginTransaction()
	sent := c.Send(p, "out", []Message{{Value: []byte("c"), Partition: 0}})
	if _, err := c.RunUntil(func() bool { return sent[0].Done }, time.Minute); err != nil {
		t.Fatal(err)
	}
	abort := p.AbortTransaction()
	waitOp(t, c, "abortTransaction", abort)
	if abort.Err != protocol.None || p.TxnState() != "READY" {
		t.Fatalf("abort %s, state %s", abort.Err.Name(), p.TxnState())
	}
	if ok, err := c.RunUntil(func() bool { m, _ := markers(t, c, 0); return len(m) == 2 }, time.Minute); err != nil || !ok {
		t.Fatal("the ABORT marker never arrived")
	}
	if m, _ := markers(t, c, 0); m[1] != "ABORT@2" {
		t.Fatalf("partition 0 markers %v, want COMMIT@1 then ABORT@2", m)
	}
	noViolations(t, c)
}

// Zombie fencing: a second instance with the same transactional.id calls
// initTransactions, which aborts the first one's open transaction and bumps
// the epoch; the first instance's commit then fails for good.
func TestTransactionalProducerZombieIsFenced(t *testing.T) {
	c := txnProducerCluster(t)
	zombie := txnProducer(t, c, "p")
	waitOp(t, c, "initTransactions", zombie.InitTransactions())
	zombie.BeginTransaction()
	ds := c.Send(zombie, "out", []Message{{Value: []byte("z"), Partition: 0}})
	if _, err := c.RunUntil(func() bool { return ds[0].Done }, time.Minute); err != nil || ds[0].Err != protocol.None {
		t.Fatalf("zombie's first record %s (%v)", ds[0].Err.Name(), err)
	}
	fresh := txnProducer(t, c, "p2")
	init := fresh.InitTransactions()
	waitOp(t, c, "the new instance's initTransactions", init)
	if init.Err != protocol.None {
		t.Fatalf("new instance: %s %q", init.Err.Name(), init.Message)
	}
	_, zEpoch := zombie.ProducerIDAndEpoch()
	if _, epoch := fresh.ProducerIDAndEpoch(); epoch <= zEpoch {
		t.Fatalf("new instance epoch %d, zombie's %d: want it bumped past", epoch, zEpoch)
	}
	commit := zombie.CommitTransaction()
	waitOp(t, c, "the zombie's commit", commit)
	if commit.Err != protocol.ProducerFenced || zombie.TxnState() != "FATAL_ERROR" {
		t.Fatalf("zombie's commit %s %q, state %s; want PRODUCER_FENCED, FATAL_ERROR", commit.Err.Name(), commit.Message, zombie.TxnState())
	}
	if m, _ := markers(t, c, 0); len(m) != 1 || m[0][:5] != "ABORT" {
		t.Fatalf("partition 0 markers %v, want the zombie's transaction aborted", m)
	}
	noViolations(t, c)
}

// committedOffset is group g's committed offset for tp, -1 when none.
func committedOffset(c *Cluster, group string, tp protocol.TopicPartition) int64 {
	d, _, ok := c.DescribeGroup(group)
	if !ok {
		return -1
	}
	for _, o := range d.Offsets {
		if o.TP == tp {
			return o.Offset
		}
	}
	return -1
}

// Consume-transform-produce: the consumer's offsets go through the
// transaction (sendOffsetsToTransaction: TxnOffsetCommit with the
// consumer's group metadata) and become the group's committed offsets only
// with the COMMIT marker; an aborted transaction's offsets never do.
func TestTransactionalProducerCommitsConsumerOffsets(t *testing.T) {
	nativeOnly(t, "a consume-transform-produce loop, 10 s under node")
	// It guards two things it once caught: the group coordinator must
	// append its transactional offset batch with the Coordinator origin
	// (as a client's, the next transaction's epoch bump made it
	// OUT_OF_ORDER_SEQUENCE_NUMBER), and the checker's
	// committed-offset-monotonic must not count an aborted transaction's
	// offsets as committed.
	c := txnProducerCluster(t)
	if err := c.CreateTopic("in", 1, 3, nil); err != nil {
		t.Fatal(err)
	}
	plain, _ := c.CreateProducer("feeder", client.DefaultProducerConfig())
	var in []Message
	for i := range 5 {
		in = append(in, Message{Value: []byte(fmt.Sprint("in-", i)), Partition: 0})
	}
	if _, err := c.Produce(plain, "in", in); err != nil {
		t.Fatal(err)
	}
	ccfg := client.DefaultConsumerConfig()
	ccfg.GroupID, ccfg.AutoOffsetReset, ccfg.EnableAutoCommit = "g", "earliest", false
	co, err := c.CreateGroupConsumer("c", ccfg, []string{"in"})
	if err != nil {
		t.Fatal(err)
	}
	var got []client.ConsumedRecord
	for len(got) < 3 && c.Elapsed() < 5*time.Minute {
		recs, err := c.Poll(co, 3-len(got), time.Second)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, recs...)
	}
	inTP := protocol.TopicPartition{Topic: "in", Partition: 0}
	p := txnProducer(t, c, "p")
	waitOp(t, c, "initTransactions", p.InitTransactions())

	p.BeginTransaction()
	c.Send(p, "out", []Message{{Value: []byte("out-0..2"), Partition: 0}})
	offsets := p.SendOffsetsToTransaction([]protocol.OffsetCommitPartition{{TP: inTP, Offset: 3, LeaderEpoch: -1}}, co.GroupMetadata())
	waitOp(t, c, "sendOffsetsToTransaction", offsets)
	if offsets.Err != protocol.None {
		t.Fatalf("sendOffsetsToTransaction %s %q", offsets.Err.Name(), offsets.Message)
	}
	if off := committedOffset(c, "g", inTP); off == 3 {
		t.Fatal("the transaction's offset is committed before the transaction")
	}
	commit := p.CommitTransaction()
	waitOp(t, c, "commitTransaction", commit)
	if commit.Err != protocol.None {
		t.Fatalf("commit %s %q", commit.Err.Name(), commit.Message)
	}
	if ok, err := c.RunUntil(func() bool { return committedOffset(c, "g", inTP) == 3 }, time.Minute); err != nil || !ok {
		t.Fatalf("committed offset %d after the commit, want 3", committedOffset(c, "g", inTP))
	}

	p.BeginTransaction()
	c.Send(p, "out", []Message{{Value: []byte("out-3..4"), Partition: 0}})
	offsets = p.SendOffsetsToTransaction([]protocol.OffsetCommitPartition{{TP: inTP, Offset: 5, LeaderEpoch: -1}}, co.GroupMetadata())
	waitOp(t, c, "sendOffsetsToTransaction", offsets)
	abort := p.AbortTransaction()
	waitOp(t, c, "abortTransaction", abort)
	if err := c.Tick(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	if off := committedOffset(c, "g", inTP); off != 3 || abort.Err != protocol.None {
		t.Fatalf("committed offset %d after the abort (%s %q; offsets %s %q), want still 3", off, abort.Err.Name(), abort.Message, offsets.Err.Name(), offsets.Message)
	}
	noViolations(t, c)
}
