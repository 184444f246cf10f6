package cluster

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/view"
)

func producerNode(t *testing.T, v view.Cluster, name string) view.Client {
	t.Helper()
	for _, cl := range v.ClientNodes {
		if cl.Name == name {
			return cl
		}
	}
	t.Fatalf("the view has no client %s", name)
	return view.Client{}
}

// The view carries a transactional producer's TransactionManager (id,
// epoch, state, per-partition sequences) and its coordinator's
// transaction (state, partitions, timeout, age, where it runs), both as
// the engine holds them at each step of the transaction's life.
func TestViewShowsProducerStateAndTransaction(t *testing.T) {
	c := txnProducerCluster(t)
	p := txnProducer(t, c, "p")
	waitOp(t, c, "initTransactions", p.InitTransactions())
	if err := p.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	ds := c.Send(p, "out", []Message{{Value: []byte("a"), Partition: 0}, {Value: []byte("b"), Partition: 1}})
	if ok, err := c.RunUntil(func() bool { return ds[0].Done && ds[1].Done }, time.Minute); err != nil || !ok {
		t.Fatal("the sends never completed")
	}
	if err := c.Tick(1500 * time.Millisecond); err != nil {
		t.Fatal(err)
	}

	v := c.View()
	cl := producerNode(t, v, "p")
	pid, epoch := p.ProducerIDAndEpoch()
	ps := cl.Producer
	if cl.Down || ps == nil || !ps.Idempotent || ps.TransactionalID != "tx" || ps.ProducerID != pid || ps.ProducerEpoch != int(epoch) || ps.TxnState != "IN_TRANSACTION" {
		t.Fatalf("producer node %+v %+v; want idempotent, tx, pid %d epoch %d, IN_TRANSACTION", cl, ps, pid, epoch)
	}
	if len(ps.Sequences) != 2 || ps.Sequences[0] != (view.ProducerSequence{TP: "out/0", NextSequence: 1, LastAckedSequence: 0}) ||
		ps.Sequences[1].TP != "out/1" {
		t.Fatalf("sequences %+v, want out/0 and out/1 at next 1, last acked 0", ps.Sequences)
	}
	if len(v.Transactions) != 1 {
		t.Fatalf("transactions %+v, want tx", v.Transactions)
	}
	tx := v.Transactions[0]
	leader := c.controller.Image().Partition(broker.TransactionStateTopic, c.TxnPartition("tx")).Leader
	if tx.ID != "tx" || tx.State != "Ongoing" || tx.ProducerID != pid || tx.ProducerEpoch != int(epoch) || tx.TimeoutMs != 60000 ||
		!slices.Equal(tx.Partitions, []string{"out/0", "out/1"}) || tx.Coordinator != int(leader) || tx.StatePartition != int(c.TxnPartition("tx")) || tx.Error != "" {
		t.Fatalf("transaction %+v", tx)
	}
	if tx.StartMs < 0 || tx.StartMs > v.NowMs || tx.DurationMs != v.NowMs-tx.StartMs || tx.DurationMs < 1500 {
		t.Fatalf("transaction started at %d, open for %d ms at %d ms", tx.StartMs, tx.DurationMs, v.NowMs)
	}

	waitOp(t, c, "commitTransaction", p.CommitTransaction())
	if ok, err := c.RunUntil(func() bool { d, _ := c.DescribeTransaction("tx"); return d.State.String() == "CompleteCommit" }, time.Minute); err != nil || !ok {
		t.Fatalf("the transaction never completed: %+v", c.View().Transactions)
	}
	tx = c.View().Transactions[0]
	// Kafka's coordinator empties the partitions once every marker is
	// written (it keeps the start time: describe still reports it).
	if len(tx.Partitions) != 0 || tx.PendingState != "" {
		t.Fatalf("a completed transaction %+v still has partitions or a pending transition", tx)
	}

	// The coordinator's broker fails: the id is not gone, its coordinator
	// is; the panel says so until the new leader of its __transaction_state
	// partition has loaded it.
	if err := c.CrashBroker(tx.Coordinator, false); err != nil {
		t.Fatal(err)
	}
	v = c.View()
	if len(v.Transactions) != 1 || v.Transactions[0].Error != "COORDINATOR_NOT_AVAILABLE" || v.Transactions[0].State != "" {
		t.Fatalf("with its coordinator down the transaction is %+v, want COORDINATOR_NOT_AVAILABLE", v.Transactions)
	}
	if ok, err := c.RunUntil(func() bool {
		d, code := c.DescribeTransaction("tx")
		return code == 0 && d.State.String() == "CompleteCommit"
	}, time.Minute); err != nil || !ok {
		t.Fatal("no other broker took over the transaction")
	}
	if tx2 := c.View().Transactions[0]; tx2.State != "CompleteCommit" || tx2.Coordinator == tx.Coordinator || tx2.Error != "" {
		t.Fatalf("after the failover %+v", tx2)
	}

	if err := c.CrashProducer("p"); err != nil {
		t.Fatal(err)
	}
	if cl := producerNode(t, c.View(), "p"); !cl.Down {
		t.Fatalf("a crashed producer is drawn %+v", cl)
	}
}

// The partition strip draws __transaction_state's records as what the
// coordinator wrote (the transactional id; state, producer id, epoch,
// partitions), as it does __consumer_offsets', never as their binary
// bytes.
func TestTransactionStateRecordsAreDrawnAsWhatTheySay(t *testing.T) {
	c := txnProducerCluster(t)
	p := txnProducer(t, c, "p")
	waitOp(t, c, "initTransactions", p.InitTransactions())
	if err := p.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	ds := c.Send(p, "out", []Message{{Value: []byte("a"), Partition: 0}})
	if ok, err := c.RunUntil(func() bool { return ds[0].Done }, time.Minute); err != nil || !ok {
		t.Fatal("the send never completed")
	}
	pid, _ := p.ProducerIDAndEpoch()
	var labels []string
	for _, tv := range c.View().Topics {
		if tv.Name != broker.TransactionStateTopic {
			continue
		}
		for _, pv := range tv.Partitions {
			for _, r := range pv.Records {
				labels = append(labels, r.Key+": "+r.Value)
			}
		}
	}
	want := fmt.Sprintf("tx: Ongoing · pid %d · epoch 0 · 1 partition", pid)
	if !slices.Contains(labels, want) {
		t.Fatalf("__transaction_state's records are drawn as %q; want one %q", labels, want)
	}
	for _, l := range labels {
		if !utf8.ValidString(l) || strings.ContainsAny(l, "\x00\x01\x02") {
			t.Errorf("a record is drawn as bytes: %q", l)
		}
	}
}
