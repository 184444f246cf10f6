package lab

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/protocol"
)

// producerArg finds the producer a command names as its first word.
func producerArg(l *Lab, a *args) (*client.Producer, error) {
	if len(a.positional) == 0 {
		return nil, fmt.Errorf("missing producer name")
	}
	p := l.cluster.Producer(a.positional[0])
	if p == nil {
		return nil, fmt.Errorf("no producer %q; create it with `producer create %s transactional.id=ID`", a.positional[0], a.positional[0])
	}
	if p.Crashed() {
		return nil, fmt.Errorf("producer %s has crashed; `producer restart %s` starts a new instance", p.ID, p.ID)
	}
	return p, nil
}

// txnFailed is an exception a transactional call threw: Kafka's answer,
// not a misuse of the command.
type txnFailed struct{ msg string }

func (e *txnFailed) Error() string { return e.msg }
func (e *txnFailed) Outcome()      {}

// pidEpoch prints the producer's id and epoch.
func pidEpoch(p *client.Producer) string {
	id, epoch := p.ProducerIDAndEpoch()
	return fmt.Sprintf("producer id %d, epoch %d", id, epoch)
}

// runTxnOp blocks as the Java call does, for at most max.block.ms, and
// turns its failure into the exception's text.
func runTxnOp(l *Lab, p *client.Producer, op *client.TxnOp, call string) error {
	if err := l.cluster.RunTxnOp(op, p.Config().MaxBlock); err != nil {
		return err
	}
	switch {
	case !op.Done:
		return &txnFailed{fmt.Sprintf("%s: %s failed: %s: Timeout expired after %dms while awaiting %s", p.ID, call, protocol.TimeoutExceptionClass, p.Config().MaxBlock.Milliseconds(), call)}
	case op.Err != protocol.None && op.Message != "":
		return &txnFailed{fmt.Sprintf("%s: %s failed: %s: %s", p.ID, call, op.Err.Name(), op.Message)}
	case op.Err != protocol.None:
		return &txnFailed{fmt.Sprintf("%s: %s failed: %s", p.ID, call, op.Err.Name())}
	}
	return nil
}

// initTransactions runs a transactional producer's initTransactions, as
// an application does right after creating it.
func initTransactions(l *Lab, p *client.Producer) (string, error) {
	if err := runTxnOp(l, p, p.InitTransactions(), "initTransactions"); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s: initTransactions: %s (transactional.id %s)", p.ID, pidEpoch(p), p.Config().TransactionalID), nil
}

var txnBeginCommand = &command{
	name:    "txn begin",
	usage:   "txn begin PRODUCER",
	summary: "KafkaProducer.beginTransaction: local to the producer; the partitions join the transaction when its first records reach them",
	run: func(l *Lab, a *args) (string, error) {
		p, err := txnProducer(l, a)
		if err != nil {
			return "", err
		}
		if err := p.BeginTransaction(); err != nil {
			return "", &txnFailed{fmt.Sprintf("%s: beginTransaction failed: %v", p.ID, err)}
		}
		return fmt.Sprintf("%s: began a transaction (%s)", p.ID, pidEpoch(p)), nil
	},
}

var txnCommitCommand = &command{
	name:  "txn commit",
	usage: "txn commit PRODUCER",
	summary: "KafkaProducer.commitTransaction: flush the transaction's records, then EndTxn(COMMIT); it returns once the coordinator " +
		"has written PrepareCommit, and writes the COMMIT markers after",
	run: func(l *Lab, a *args) (string, error) { return endTxn(l, a, true) },
}

var txnAbortCommand = &command{
	name:    "txn abort",
	usage:   "txn abort PRODUCER",
	summary: "KafkaProducer.abortTransaction: drop the unsent records, then EndTxn(ABORT); the coordinator writes the ABORT markers after",
	run:     func(l *Lab, a *args) (string, error) { return endTxn(l, a, false) },
}

func txnProducer(l *Lab, a *args) (*client.Producer, error) {
	if err := l.requireCluster(); err != nil {
		return nil, err
	}
	if err := a.finish(); err != nil {
		return nil, err
	}
	if len(a.positional) != 1 {
		return nil, fmt.Errorf("expected one producer name")
	}
	return producerArg(l, a)
}

func endTxn(l *Lab, a *args, commit bool) (string, error) {
	p, err := txnProducer(l, a)
	if err != nil {
		return "", err
	}
	call, op, marker := "abortTransaction", (*client.TxnOp)(nil), "ABORT"
	if commit {
		call, marker = "commitTransaction", "COMMIT"
		op = p.CommitTransaction()
	} else {
		op = p.AbortTransaction()
	}
	if err := runTxnOp(l, p, op, call); err != nil {
		return "", err
	}
	verb := "aborted"
	if commit {
		verb = "committed"
	}
	return fmt.Sprintf("%s: %s the transaction; the coordinator writes its %s markers; next transaction with %s", p.ID, verb, marker, pidEpoch(p)), nil
}

var txnSendOffsetsCommand = &command{
	name:  "txn send-offsets",
	usage: "txn send-offsets PRODUCER CONSUMER",
	summary: "KafkaProducer.sendOffsetsToTransaction with the consumer's positions and group metadata: the offsets commit " +
		"with the transaction (TxnOffsetCommit), fenced by the consumer's generation (KIP-447)",
	run: func(l *Lab, a *args) (string, error) {
		if err := l.requireCluster(); err != nil {
			return "", err
		}
		if err := a.finish(); err != nil {
			return "", err
		}
		if len(a.positional) != 2 {
			return "", fmt.Errorf("expected PRODUCER CONSUMER")
		}
		p, err := producerArg(l, a)
		if err != nil {
			return "", err
		}
		co := l.cluster.Consumer(a.positional[1])
		if co == nil {
			return "", fmt.Errorf("no consumer %q", a.positional[1])
		}
		if co.GroupID() == "" {
			return "", fmt.Errorf("consumer %s has no group.id: sendOffsetsToTransaction commits a group's offsets", co.ID)
		}
		var offsets []protocol.OffsetCommitPartition
		for _, tp := range co.Assignment() {
			if pos := co.Position(tp); pos >= 0 {
				offsets = append(offsets, protocol.OffsetCommitPartition{TP: tp, Offset: pos, LeaderEpoch: -1})
			}
		}
		if len(offsets) == 0 {
			return "", fmt.Errorf("consumer %s has no position to send yet: poll it first", co.ID)
		}
		if err := runTxnOp(l, p, p.SendOffsetsToTransaction(offsets, co.GroupMetadata()), "sendOffsetsToTransaction"); err != nil {
			return "", err
		}
		return fmt.Sprintf("%s: sent %s of group %s to the transaction (committed with it)", p.ID, formatOffsets(offsets), co.GroupID()), nil
	},
}

var producerCrashCommand = &command{
	name:    "producer crash",
	usage:   "producer crash NAME",
	summary: "kill the producer's process: what it had not sent is lost; its open transaction stays open until transaction.timeout.ms or a new instance fences it",
	run: func(l *Lab, a *args) (string, error) {
		if err := l.requireCluster(); err != nil {
			return "", err
		}
		name, err := onePositional(a, "producer name")
		if err != nil {
			return "", err
		}
		if err := a.finish(); err != nil {
			return "", err
		}
		if err := l.cluster.CrashProducer(name); err != nil {
			return "", err
		}
		return fmt.Sprintf("producer %s crashed", name), nil
	},
}

var producerRestartCommand = &command{
	name:    "producer restart",
	usage:   "producer restart NAME",
	summary: "start a crashed producer again with its configuration: a new process; a transactional one calls initTransactions, which fences the crashed instance",
	run: func(l *Lab, a *args) (string, error) {
		if err := l.requireCluster(); err != nil {
			return "", err
		}
		name, err := onePositional(a, "producer name")
		if err != nil {
			return "", err
		}
		if err := a.finish(); err != nil {
			return "", err
		}
		p, err := l.cluster.RestartProducer(name)
		if err != nil {
			return "", err
		}
		if !p.Transactional() {
			return fmt.Sprintf("restarted producer %s", name), nil
		}
		out, err := initTransactions(l, p)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("restarted producer %s\n%s", name, out), nil
	},
}

var showTxnCommand = &command{
	name:    "show txn",
	usage:   "show txn TRANSACTIONAL_ID",
	summary: "the transaction coordinator's state of a transactional id, as kafka-transactions.sh describe prints it",
	run: func(l *Lab, a *args) (string, error) {
		if err := l.requireCluster(); err != nil {
			return "", err
		}
		id, err := onePositional(a, "transactional id")
		if err != nil {
			return "", err
		}
		if err := a.finish(); err != nil {
			return "", err
		}
		fail := func(code protocol.ErrorCode) error {
			return &txnFailed{fmt.Sprintf("Failed to describe transaction state of transactional-id `%s`: %s", id, code.Name())}
		}
		d, code := l.cluster.DescribeTransaction(id)
		if code != protocol.None {
			return "", fail(code)
		}
		start, duration := "None", "None"
		if d.TransactionStartTimeMs >= 0 {
			start = strconv.FormatInt(d.TransactionStartTimeMs, 10)
			duration = strconv.FormatInt(d.TransactionDurationMs(l.cluster.NowMs()), 10)
		}
		var tps []string
		for _, tp := range d.Partitions {
			tps = append(tps, fmt.Sprintf("%s-%d", tp.Topic, tp.Partition))
		}
		headers := []string{"CoordinatorId", "TransactionalId", "ProducerId", "ProducerEpoch", "TransactionState", "TransactionTimeoutMs",
			"CurrentTransactionStartTimeMs", "TransactionDurationMs", "TopicPartitions"}
		row := []string{strconv.Itoa(int(d.CoordinatorID)), id, strconv.FormatInt(d.ProducerID, 10), strconv.Itoa(int(d.ProducerEpoch)), d.State.String(),
			strconv.Itoa(int(d.TransactionTimeoutMs)), start, duration, strings.Join(tps, ",")}
		out := prettyTable(headers, [][]string{row})
		out += fmt.Sprintf("\n(coordinator: broker %d, %s/%d, coordinator epoch %d", d.CoordinatorID, broker.TransactionStateTopic, l.cluster.TxnPartition(id), d.CoordinatorEpoch)
		if d.PendingState != "" {
			out += "; writing " + d.PendingState
		}
		return out + ")", nil
	},
}
