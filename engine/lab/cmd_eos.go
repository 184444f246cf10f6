package lab

import (
	"fmt"
	"strings"
	"time"

	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/cluster"
	"github.com/loglab/loglab/engine/protocol"
)

// The consume-transform-produce loop of an exactly-once application, one
// iteration per command, as Kafka's documentation writes it (and Kafka
// Streams runs it with processing.guarantee=exactly_once_v2):
//
//	records = consumer.poll()            // isolation.level=read_committed
//	process each record                  // here the external side effect runs
//	producer.beginTransaction()
//	producer.send(transform(record))...  // upper-cased values
//	producer.sendOffsetsToTransaction(consumer positions, consumer.groupMetadata())
//	producer.flush()
//	producer.commitTransaction()
//
// crash= kills both processes (the consumer and the producer are one
// application) right after the named step, so a learner can see that a
// crash anywhere leaves the output and the offsets all visible or not at
// all, and that the side effect ran for records the restarted application
// processes again.

// eosCrashPoints are the steps crash= may name, in the loop's order.
var eosCrashPoints = []string{"after-poll", "after-send", "after-send-offsets", "before-commit"}

var eosCommand = &command{
	name:  "eos",
	usage: "eos CONSUMER PRODUCER to=TOPIC [max=N] [crash=after-poll|after-send|after-send-offsets|before-commit]",
	summary: "one exactly-once consume-transform-produce iteration: poll CONSUMER, process (an external side effect per record), " +
		"beginTransaction, send each value upper-cased to TOPIC, sendOffsetsToTransaction(positions, groupMetadata), flush, " +
		"commitTransaction; crash= kills both processes after that step",
	run: runEOS,
}

var showSideEffectsCommand = &command{
	name:    "show side-effects",
	usage:   "show side-effects",
	summary: "the external side effects the eos loops performed, per input record: what a transaction cannot take back",
	run: func(l *Lab, a *args) (string, error) {
		if err := l.requireCluster(); err != nil {
			return "", err
		}
		if err := a.finish(); err != nil {
			return "", err
		}
		effects := l.cluster.SideEffects()
		if len(effects) == 0 {
			return "no side effects yet (the eos command performs one per record it processes)", nil
		}
		rows := make([][]string, 0, len(effects))
		again := 0
		for _, e := range effects {
			times := fmt.Sprint(e.Times)
			if e.Times > 1 {
				times += " AGAIN"
				again++
			}
			rows = append(rows, []string{e.Consumer, fmt.Sprintf("%s/%d", e.TP.Topic, e.TP.Partition), fmt.Sprint(e.Offset), e.Value, times})
		}
		out := prettyTable([]string{"CONSUMER", "INPUT", "OFFSET", "VALUE", "SIDE-EFFECTS"}, rows)
		return out + fmt.Sprintf("\n%d of %d input records had their side effect performed more than once", again, len(effects)), nil
	},
}

func runEOS(l *Lab, a *args) (string, error) {
	if err := l.requireCluster(); err != nil {
		return "", err
	}
	if len(a.positional) != 2 {
		return "", fmt.Errorf("expected CONSUMER PRODUCER")
	}
	to := a.str("to", "")
	maxRecords := a.integer("max", 0, 1, 100000)
	crash := a.enum("crash", "", eosCrashPoints...)
	if err := a.finish(); err != nil {
		return "", err
	}
	if to == "" {
		return "", fmt.Errorf("missing to=TOPIC: where the transformed records go")
	}
	co := l.cluster.Consumer(a.positional[0])
	if co == nil {
		return "", fmt.Errorf("no consumer %q", a.positional[0])
	}
	if co.Closed() {
		return "", fmt.Errorf("consumer %s is not running; `consumer restart %s` starts a new process", co.ID, co.ID)
	}
	if co.GroupID() == "" {
		return "", fmt.Errorf("consumer %s has no group.id: sendOffsetsToTransaction commits a group's offsets", co.ID)
	}
	p, err := producerArg(l, &args{positional: a.positional[1:]})
	if err != nil {
		return "", err
	}
	if !p.Transactional() {
		return "", fmt.Errorf("producer %s has no transactional.id", p.ID)
	}
	if _, err := l.cluster.PartitionInfo(to, 0); err != nil {
		return "", err
	}
	if maxRecords == 0 {
		maxRecords = co.Config().MaxPollRecords
	}
	e := &eosRun{l: l, co: co, p: p, crash: crash}
	return e.run(to, maxRecords)
}

// eosRun is one iteration, writing what each step did.
type eosRun struct {
	l     *Lab
	co    *client.Consumer
	p     *client.Producer
	crash string
	out   strings.Builder
}

func (e *eosRun) printf(format string, v ...any) { fmt.Fprintf(&e.out, format+"\n", v...) }

// crashed kills both processes if the iteration is to crash after step.
func (e *eosRun) crashed(step string) bool {
	if e.crash != step {
		return false
	}
	e.l.cluster.CrashConsumer(e.co)
	_ = e.l.cluster.CrashProducer(string(e.p.ID))
	e.printf("crash %s: consumer %s and producer %s crashed (no commit, no abort, no LeaveGroup)", step, e.co.ID, e.p.ID)
	return true
}

func (e *eosRun) fail(err error) (string, error) {
	return "", &txnFailed{strings.TrimRight(e.out.String(), "\n") + "\n" + err.Error()}
}

func (e *eosRun) run(to string, maxRecords int) (string, error) {
	c := e.l.cluster
	recs, err := c.Poll(e.co, maxRecords, time.Second)
	if err != nil {
		return e.fail(err)
	}
	if len(recs) == 0 {
		return fmt.Sprintf("%s: poll returned no records within 1s: no transaction", e.co.ID), nil
	}
	for _, r := range recs {
		e.printf("poll: %s/%d offset %d value=%s", r.TP.Topic, r.TP.Partition, r.Offset, nullable(r.Value))
	}
	done, err := c.Process(e.co, 0)
	if err != nil {
		return e.fail(err)
	}
	writeReprocessed(&e.out, done)
	for _, r := range recs {
		s := c.PerformSideEffect(string(e.co.ID), r)
		e.printf("side effect for %s/%d offset %d (%s): %s time", r.TP.Topic, r.TP.Partition, r.Offset, nullable(r.Value), ordinalWord(s.Times))
	}
	if e.crashed("after-poll") {
		return e.done()
	}
	if err := e.p.BeginTransaction(); err != nil {
		return e.fail(fmt.Errorf("%s: beginTransaction failed: %v", e.p.ID, err))
	}
	e.printf("%s: beginTransaction (%s)", e.p.ID, pidEpoch(e.p))
	msgs := make([]cluster.Message, len(recs))
	for i, r := range recs {
		var v []byte
		if r.Value != nil {
			v = []byte(strings.ToUpper(string(r.Value)))
		}
		msgs[i] = cluster.Message{Key: r.Key, Value: v, Partition: -1}
	}
	ds := c.Send(e.p, to, msgs)
	vals := make([]string, len(msgs))
	for i, m := range msgs {
		vals[i] = nullable(m.Value)
	}
	e.printf("%s: send %s to %s", e.p.ID, strings.Join(vals, ", "), to)
	if e.crashed("after-send") {
		return e.done()
	}
	var offsets []protocol.OffsetCommitPartition
	for _, tp := range e.co.Assignment() {
		if pos := e.co.Position(tp); pos >= 0 {
			offsets = append(offsets, protocol.OffsetCommitPartition{TP: tp, Offset: pos, LeaderEpoch: -1})
		}
	}
	if err := runTxnOp(e.l, e.p, e.p.SendOffsetsToTransaction(offsets, e.co.GroupMetadata()), "sendOffsetsToTransaction"); err != nil {
		return e.fail(err)
	}
	e.printf("%s: sendOffsetsToTransaction %s of group %s (generation %d)", e.p.ID, formatOffsets(offsets), e.co.GroupID(), e.co.GroupMetadata().GenerationID)
	if e.crashed("after-send-offsets") {
		return e.done()
	}
	limit := e.p.Config().DeliveryTimeout + e.p.Config().RequestTimeout
	if _, err := c.RunUntil(func() bool { return allDelivered(ds) }, limit); err != nil {
		return e.fail(err)
	}
	for _, d := range ds {
		if !d.Done || d.Err != protocol.None {
			return e.fail(fmt.Errorf("%s: flush: a send failed (%s): the application must abort the transaction", e.p.ID, d.Err.Name()))
		}
		e.printf("%s: flushed %s to %s/%d offset %d", e.p.ID, nullable(d.Value), d.Topic, d.Partition, d.Offset)
	}
	if e.crashed("before-commit") {
		return e.done()
	}
	if err := runTxnOp(e.l, e.p, e.p.CommitTransaction(), "commitTransaction"); err != nil {
		return e.fail(err)
	}
	e.printf("%s: commitTransaction: committed; the coordinator writes its COMMIT markers", e.p.ID)
	return e.done()
}

func (e *eosRun) done() (string, error) { return strings.TrimRight(e.out.String(), "\n"), nil }

func allDelivered(ds []*client.Delivery) bool {
	for _, d := range ds {
		if !d.Done {
			return false
		}
	}
	return true
}

func ordinalWord(n int) string {
	switch n {
	case 1:
		return "1st"
	case 2:
		return "2nd"
	case 3:
		return "3rd"
	}
	return fmt.Sprintf("%dth", n)
}
