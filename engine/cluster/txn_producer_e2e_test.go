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
