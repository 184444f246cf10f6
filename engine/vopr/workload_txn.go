package vopr

import (
	"fmt"
	"slices"
	"strings"

	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/cluster"
	"github.com/loglab/loglab/engine/protocol"
)

// The workload's transactional producers (issue 13 item 7): one or two
// transactional.ids, each with a producer that begins, writes to one to
// three partitions of different topics, commits and aborts transactions,
// crashes and restarts (the new instance's initTransactions fences the
// crashed one's open transaction), and sometimes gets a second instance
// under the same transactional.id while the first goes on: a zombie that
// keeps writing and committing and must be fenced. A read_committed
// consumer polls every topic (the checker checks isolation at each poll),
// and a consume-transform-produce step commits a group member's positions
// through the transaction (sendOffsetsToTransaction). The coordinators
// live on a few __transaction_state partitions, so they fail over with
// their brokers. The plain producers are idempotent already (Kafka 3.0's
// default): the idempotent invariants watch every run.

const (
	maxTxnIDs = 2
	// maxTxnInstances bounds the instances of one transactional.id: the
	// first, and at most two later ones that fence it.
	maxTxnInstances       = 3
	readCommittedConsumer = "rc"
)

// txnIDSpec is one transactional.id and the producers created with it,
// the newest last.
type txnIDSpec struct {
	id        string
	settings  string // the producer create line's settings
	instances []string
}

// txnClusterOptions are the cluster line's transaction settings: few
// __transaction_state partitions so that coordinators share brokers and
// move with them, and the timed-out transaction check run every second or
// few (Kafka: 10 s) so a short transaction.timeout.ms bites within a run.
func (w *workload) txnClusterOptions() string {
	r := w.rng
	return fmt.Sprintf(" transaction.state.log.num.partitions=%d transaction.abort.timed.out.transaction.cleanup.interval.ms=%d",
		1+r.IntN(5), pick(r, 1000, 3000, 10000))
}

// setupTxns creates the transactional producers (initTransactions runs at
// create) and the read_committed consumer.
func (w *workload) setupTxns() []string {
	r := w.rng
	var lines []string
	for i := range 1 + r.IntN(maxTxnIDs) {
		request := pick(r, 500, 1000, 3000)
		linger := pick(r, 0, 5, 20)
		delivery := request + linger + pick(r, 1000, 5000)
		spec := txnIDSpec{id: fmt.Sprintf("txid%d", i),
			settings: fmt.Sprintf("linger.ms=%d max.in.flight=%d retry.backoff.ms=%d request.timeout.ms=%d delivery.timeout.ms=%d transaction.timeout.ms=%d max.block.ms=%d",
				linger, pick(r, 1, 5), pick(r, 100, 250), request, delivery, pick(r, 60000, 60000, 3000, 10000), pick(r, 10000, 30000))}
		w.txnIDs = append(w.txnIDs, spec)
		lines = append(lines, w.createTxnInstance(&w.txnIDs[i]))
	}
	var topics []string
	for _, t := range w.topics {
		topics = append(topics, t.name)
	}
	lines = append(lines, fmt.Sprintf("consumer create %s topics=%s isolation.level=read_committed auto.offset.reset=earliest", readCommittedConsumer, strings.Join(topics, ",")))
	return lines
}

// createTxnInstance is the create line of the next producer instance of a
// transactional.id: "tx0", then "tx0b", "tx0c".
func (w *workload) createTxnInstance(s *txnIDSpec) string {
	name := "tx" + strings.TrimPrefix(s.id, "txid") + string(rune('a'+len(s.instances)))
	s.instances = append(s.instances, name)
	return fmt.Sprintf("producer create %s transactional.id=%s %s", name, s.id, s.settings)
}

// txnProducer is one instance as the workload sees it now.
type txnProducer struct {
	name  string
	p     *client.Producer
	spec  *txnIDSpec
	state string // the TransactionManager's state
}

// txnProducers lists every created instance that exists in the cluster
// (a create whose initTransactions failed still made the producer).
func (w *workload) txnProducers(c *cluster.Cluster) []txnProducer {
	var out []txnProducer
	for i := range w.txnIDs {
		s := &w.txnIDs[i]
		for _, name := range s.instances {
			if p := c.Producer(name); p != nil {
				out = append(out, txnProducer{name: name, p: p, spec: s, state: p.TxnState()})
			}
		}
	}
	return out
}

func (w *workload) txnAction(c *cluster.Cluster) []string {
	r := w.rng
	all := w.txnProducers(c)
	live := func(states ...string) []txnProducer {
		var out []txnProducer
		for _, tp := range all {
			if !tp.p.Crashed() && (len(states) == 0 || slices.Contains(states, tp.state)) {
				out = append(out, tp)
			}
		}
		return out
	}
	var crashed []txnProducer
	for _, tp := range all {
		if tp.p.Crashed() {
			crashed = append(crashed, tp)
		}
	}
	pickOne := func(ps []txnProducer) txnProducer { return ps[r.IntN(len(ps))] }
	type choice struct {
		weight int
		lines  func() []string
	}
	var cs []choice
	if ps := live("READY"); len(ps) > 0 {
		cs = append(cs, choice{6, func() []string { return []string{"txn begin " + pickOne(ps).name} }})
	}
	if ps := live("IN_TRANSACTION"); len(ps) > 0 {
		cs = append(cs,
			choice{10, func() []string { return w.txnProduce(pickOne(ps).name) }},
			choice{5, func() []string { return []string{"txn commit " + pickOne(ps).name} }},
			choice{2, func() []string { return []string{"txn abort " + pickOne(ps).name} }},
		)
	}
	if ps := live("ABORTABLE_ERROR"); len(ps) > 0 {
		cs = append(cs, choice{4, func() []string { return []string{"txn abort " + pickOne(ps).name} }})
	}
	// A fenced instance (FATAL_ERROR) keeps trying, as a zombie whose
	// process does not know it was replaced would: every write and commit
	// must be refused.
	if ps := live("FATAL_ERROR"); len(ps) > 0 {
		cs = append(cs, choice{2, func() []string {
			p := pickOne(ps).name
			return append(w.txnProduce(p), "txn commit "+p)
		}})
	}
	if ps := live(); len(ps) > 0 {
		cs = append(cs, choice{1, func() []string { return []string{"producer crash " + pickOne(ps).name} }})
	}
	if len(crashed) > 0 {
		cs = append(cs, choice{3, func() []string { return []string{"producer restart " + pickOne(crashed).name} }})
	}
	var grown []*txnIDSpec
	for i := range w.txnIDs {
		if len(w.txnIDs[i].instances) < maxTxnInstances {
			grown = append(grown, &w.txnIDs[i])
		}
	}
	if len(grown) > 0 {
		// A second instance of the transactional.id while the first runs
		// (a zombie: a paused process its replacement was started for).
		cs = append(cs, choice{1, func() []string { return []string{w.createTxnInstance(grown[r.IntN(len(grown))])} }})
	}
	cs = append(cs, choice{4, func() []string {
		return []string{fmt.Sprintf("poll %s max=%d timeout=%dms", readCommittedConsumer, 1+r.IntN(100), 10+r.IntN(500))}
	}})
	if ps, ms := live("READY", "IN_TRANSACTION"), w.membersWithPositions(c); len(ps) > 0 && len(ms) > 0 {
		cs = append(cs, choice{5, func() []string { return w.consumeTransformProduce(pickOne(ps), ms[r.IntN(len(ms))]) }})
	}
	total := 0
	for _, ch := range cs {
		total += ch.weight
	}
	n := r.IntN(total)
	for _, ch := range cs {
		if n < ch.weight {
			return ch.lines()
		}
		n -= ch.weight
	}
	panic("unreachable")
}

// txnProduce writes to one to three partitions, of different topics when
// there are two: a transaction spanning partitions (and coordinators'
// markers to several leaders) is what can end half-way.
func (w *workload) txnProduce(p string) []string {
	r := w.rng
	var lines []string
	for range 1 + r.IntN(3) {
		t := w.topic()
		w.seq++
		key := fmt.Sprintf(" partition=%d", r.IntN(t.partitions))
		if t.kind == "compact" || r.IntN(3) == 0 {
			key = fmt.Sprintf(" key=k{i}%s", key)
		}
		lines = append(lines, fmt.Sprintf("produce %s%s value=%s.%d.{i} count=%d producer=%s", t.name, key, p, w.seq, 1+r.IntN(5), p))
	}
	return lines
}

// membersWithPositions lists the running group members that have a
// position on some partition they own: what sendOffsetsToTransaction
// sends.
func (w *workload) membersWithPositions(c *cluster.Cluster) []string {
	var out []string
	for _, ref := range w.members(c, true) {
		co := c.Consumer(ref.spec().name)
		if co.GroupError() != nil {
			continue
		}
		if slices.ContainsFunc(co.Assignment(), func(tp protocol.TopicPartition) bool { return co.Position(tp) >= 0 }) {
			out = append(out, ref.spec().name)
		}
	}
	return out
}

// consumeTransformProduce is one turn of an exactly-once processor: the
// member's records go out transformed inside the transaction, and its
// positions commit with it (KIP-447: the group's generation fences a
// member that lost its partitions).
func (w *workload) consumeTransformProduce(p txnProducer, member string) []string {
	var lines []string
	if p.state == "READY" {
		lines = append(lines, "txn begin "+p.name)
	}
	lines = append(lines, w.txnProduce(p.name)...)
	lines = append(lines, fmt.Sprintf("txn send-offsets %s %s", p.name, member))
	if w.rng.IntN(4) == 0 {
		return append(lines, "txn abort "+p.name)
	}
	return append(lines, "txn commit "+p.name)
}

// healTxns ends, at the end of a run, the transactions the running
// instances hold open, as an application shutting down cleanly would;
// crashed instances stay crashed, so the coordinator must abort theirs
// once transaction.timeout.ms passes (the liveness check waits for it).
func (w *workload) healTxns(c *cluster.Cluster) []string {
	if w.txnsHealed {
		return nil
	}
	w.txnsHealed = true
	var lines []string
	for _, tp := range w.txnProducers(c) {
		if tp.p.Crashed() {
			continue
		}
		switch tp.state {
		case "IN_TRANSACTION":
			lines = append(lines, []string{"txn commit ", "txn abort "}[w.rng.IntN(2)]+tp.name)
		case "ABORTABLE_ERROR":
			lines = append(lines, "txn abort "+tp.name)
		}
	}
	return lines
}
