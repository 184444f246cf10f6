package vopr

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/loglab/loglab/engine/cluster"
)

// workload draws the run's command lines. Its setup depends on the seed
// alone; each later step may read the cluster (who leads, who is down) to
// aim a fault, but only through ordered slices, so it stays deterministic.
type workload struct {
	rng  *rand.Rand
	opts Options

	brokers   int
	topics    []topicSpec
	producers []string
	acks1     string // the acks=1 producer mixed into an acks=all run, if any
	consumers []string
	groups    []groupSpec // the consumer groups (workload_groups.go)
	txnIDs    []txnIDSpec // the transactional producers (workload_txn.go)
	// txnsHealed: the end of the run has ended the open transactions.
	txnsHealed bool
	seq        int // numbers produce commands, so every value is unique
	// delayed is set while a net delay is in force: a slow link always
	// has a message on it, so stabilize would run its full ten minutes.
	delayed bool

	// powerLost marks brokers whose disk lost its unsynced writes and that
	// have not yet caught up again (see DefaultMix).
	powerLost []bool // index = broker id
}

type topicSpec struct {
	name       string
	partitions int
	kind       string // one of topicKinds
	configs    string // the topic's configs on its create line
}

// topicKinds are the topics the workload draws (PlainTopics keeps to the
// first): the unclean elections, retention and compaction paths each have
// their own recovery code in a follower, and each hid a livelock.
//
//   - plain: clean elections, nothing deleted;
//   - unclean: unclean.leader.election.enable=true, so a crash of every
//     ISR member elects a replica that lacks records, and the old ISR
//     members must find where their logs diverge when they come back
//     (two such elections in a row leave a follower with an epoch its new
//     leader never had: issue 9's livelock 4);
//   - retention: small segments and a short retention.ms or a small
//     retention.bytes, so a leader's log start offset moves past a
//     crashed follower's log end (livelock 5), also with unclean elections
//     half the time;
//   - compact: cleanup.policy=compact with small segments, keyed records
//     and tombstones, so the cleaner rewrites what followers copy.
var topicKinds = []string{"plain", "unclean", "retention", "compact"}

// Every workload topic has rf=3 and min.insync.replicas=2: acks=all then
// survives the loss of one replica's disk.
const (
	replicationFactor = 3
	minInsyncReplicas = 2
	maxConsumers      = 2
)

func newWorkload(seed uint64, opts Options) *workload {
	return &workload{rng: rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d)), opts: opts}
}

// setup is the cluster, its topics and producers, and the checker turned
// on for every event.
func (w *workload) setup(seed uint64) []string {
	r := w.rng
	w.brokers = 3 + r.IntN(3)
	w.powerLost = make([]bool, w.brokers+1)
	// Short sessions and lag limits make fencing and ISR changes happen
	// within seconds of virtual time, so a step stays cheap to simulate.
	heartbeat := pick(r, 500, 1000)
	session := heartbeat * (3 + r.IntN(4))
	lines := []string{
		fmt.Sprintf("# vopr seed=%d: replay with `loglab script FILE`", seed),
		fmt.Sprintf("cluster brokers=%d seed=%d replica.lag.time.max.ms=%d broker.heartbeat.interval.ms=%d broker.session.timeout.ms=%d leader.imbalance.check.interval.seconds=%d",
			w.brokers, seed, pick(r, 2000, 5000, 10000), heartbeat, session, pick(r, 10, 60, 300)),
		"check invariants always=true",
	}
	// Three controllers, or five (a minority of two to cut off).
	lines[1] += fmt.Sprintf(" controllers=%d", pick(r, 3, 3, 3, 5))
	if !w.opts.PlainTopics {
		// Retention and the cleaner run every second or few, not every 5
		// minutes and 15 seconds, so a step of the workload sees them.
		lines[1] += fmt.Sprintf(" log.retention.check.interval.ms=%d log.cleaner.backoff.ms=%d", pick(r, 500, 1000, 3000), pick(r, 500, 1000, 3000))
	}
	if w.opts.Mix.Group > 0 {
		lines[1] += w.groupClusterOptions()
	}
	if w.opts.Mix.Txn > 0 {
		lines[1] += w.txnClusterOptions()
	}
	for i := range 1 + r.IntN(2) {
		t := topicSpec{name: "t" + strconv.Itoa(i), partitions: 1 + r.IntN(3), kind: "plain"}
		if !w.opts.PlainTopics {
			t.kind = topicKinds[r.IntN(len(topicKinds))]
			t.configs = w.topicConfigs(t.kind)
		}
		w.topics = append(w.topics, t)
		lines = append(lines, fmt.Sprintf("topic create %s partitions=%d rf=%d min.insync.replicas=%d%s", t.name, t.partitions, replicationFactor, minInsyncReplicas, t.configs))
	}
	n := 1 + r.IntN(3)
	for i := range n {
		name := "p" + strconv.Itoa(i)
		w.producers = append(w.producers, name)
		acks := w.opts.Acks
		if !w.opts.PlainTopics && acks == "all" && i == n-1 && r.IntN(2) == 0 {
			// An acks=1 producer among acks=all ones: a leader then takes
			// records its followers lack, which is what an unclean election
			// after a leader loss leaves behind on the old leader (livelock
			// 4 needs a follower holding an epoch its new leader never had).
			acks = "1"
			w.acks1 = name
		}
		request := pick(r, 500, 1000, 3000)
		linger := pick(r, 0, 5, 20)
		delivery := request + linger + pick(r, 0, 1000, 5000)
		lines = append(lines, fmt.Sprintf("producer create %s acks=%s linger.ms=%d max.in.flight=%d retry.backoff.ms=%d request.timeout.ms=%d delivery.timeout.ms=%d",
			name, acks, linger, pick(r, 1, 1, 5), pick(r, 100, 250), request, delivery))
	}
	if w.opts.Mix.Group > 0 {
		lines = append(lines, w.setupGroups()...)
	}
	if w.opts.Mix.Txn > 0 {
		lines = append(lines, w.setupTxns()...)
	}
	return lines
}

// topicConfigs are the create line's configs for a kind of topic.
func (w *workload) topicConfigs(kind string) string {
	r := w.rng
	switch kind {
	case "unclean":
		return " unclean.leader.election.enable=true"
	case "retention":
		limit := fmt.Sprintf(" retention.ms=%d", pick(r, 2000, 5000, 20000))
		if r.IntN(2) == 0 {
			limit = fmt.Sprintf(" retention.bytes=%d", pick(r, 500, 2000))
		}
		unclean := ""
		if r.IntN(2) == 0 {
			unclean = " unclean.leader.election.enable=true"
		}
		return fmt.Sprintf(" segment.bytes=%d%s%s", pick(r, 200, 500, 1000), limit, unclean)
	case "compact":
		return fmt.Sprintf(" cleanup.policy=compact segment.bytes=%d min.cleanable.dirty.ratio=%s delete.retention.ms=%d",
			pick(r, 200, 500, 1000), []string{"0.1", "0.5"}[r.IntN(2)], pick(r, 1000, 10000))
	}
	return ""
}

func pick(r *rand.Rand, choices ...int) int { return choices[r.IntN(len(choices))] }

func pickString(r *rand.Rand, choices ...string) string { return choices[r.IntN(len(choices))] }

// action is one kind of step: its weight, whether it can run now, and the
// lines it emits.
type action struct {
	weight int
	ok     func() bool
	lines  func() []string
}

// next draws the next step's command lines from the actions that can run.
func (w *workload) next(c *cluster.Cluster) []string {
	w.updatePowerLost(c)
	m := w.opts.Mix
	if !w.opts.PlainTopics && m.LeaderLoss == 0 && w.acks1 != "" {
		m.LeaderLoss = 2
	}
	always := func() bool { return true }
	acts := []action{
		{m.Produce, always, w.produce},
		{m.TickSmall, always, func() []string { return []string{fmt.Sprintf("tick %dms", 1+w.rng.IntN(300))} }},
		{m.TickLarge, always, func() []string { return []string{fmt.Sprintf("tick %ds", 1+w.rng.IntN(10))} }},
		{m.Step, always, func() []string { return []string{fmt.Sprintf("step %d", 1+w.rng.IntN(50))} }},
		{m.Stabilize, func() bool { return !w.delayed }, func() []string { return []string{"stabilize"} }},
		{m.Consume, always, w.consume},
		{m.Group, always, func() []string { return w.groupAction(c) }},
		{m.Txn, always, func() []string { return w.txnAction(c) }},
		{m.Crash, func() bool { return len(w.alive(c)) > 1 && w.calm() }, func() []string { return w.crash(c, w.alive(c), false) }},
		{m.PowerLoss, func() bool {
			return len(w.alive(c)) > 1 && w.calm() && !w.brokersCutFromControllers(c) && w.metadataCommitted(c) && len(w.mayLosePower(c)) > 0
		}, func() []string { return w.crash(c, w.mayLosePower(c), true) }},
		{m.Restart, func() bool { return len(w.restartable(c)) > 0 }, func() []string { return w.restart(c) }},
		{m.Partition, w.calm, w.partition},
		{m.Heal, always, func() []string { w.delayed = false; return []string{"net heal"} }},
		{m.Drop, always, w.drop},
		{m.Delay, always, w.delay},
		{m.ControllerCrash, func() bool { return len(w.crashableControllers(c)) > 0 }, func() []string { return w.crashController(c) }},
		{m.ControllerRestart, func() bool { return len(c.ControllersDown()) > 0 }, func() []string {
			down := c.ControllersDown()
			return []string{fmt.Sprintf("controller restart %d", down[w.rng.IntN(len(down))])}
		}},
		{m.ControllerPartition, func() bool { return w.calm() && w.quorumHealthy(c) }, func() []string { return w.controllerPartition(c) }},
		{m.ControllerCut, func() bool { return w.calm() && len(w.cuttableLinks(c)) > 0 }, func() []string { return w.controllerCut(c) }},
		{m.UncleanLoss, func() bool { return len(w.alive(c)) > 1 && w.calm() && len(w.uncleanLeaders(c)) > 0 }, func() []string { return w.uncleanLoss(c) }},
		{m.LeaderLoss, func() bool { return len(w.alive(c)) > 1 && w.calm() && len(w.liveLeaders(c)) > 0 }, func() []string { return w.leaderLoss(c) }},
	}
	total := 0
	for i := range acts {
		if acts[i].weight > 0 && !acts[i].ok() {
			acts[i].weight = 0
		}
		total += max(acts[i].weight, 0)
	}
	n := w.rng.IntN(total)
	for _, a := range acts {
		if a.weight <= 0 {
			continue
		}
		if n < a.weight {
			return a.lines()
		}
		n -= a.weight
	}
	panic("unreachable")
}

func (w *workload) alive(c *cluster.Cluster) []int {
	var ids []int
	for _, b := range c.Brokers() {
		if b.Alive() {
			ids = append(ids, int(b.ID))
		}
	}
	return ids
}

// restartable lists the crashed brokers that may restart: those the
// controller has fenced (any crashed one with QuickRestarts).
func (w *workload) restartable(c *cluster.Cluster) []int {
	var ids []int
	for _, b := range c.Brokers() {
		if b.Alive() {
			continue
		}
		if bi := c.Controller().Image().Broker(b.ID); w.opts.QuickRestarts || bi == nil || bi.Fenced {
			ids = append(ids, int(b.ID))
		}
	}
	return ids
}

// calm reports whether crashes and partitions may happen: not while a
// broker that lost power is catching up (unless UnboundedPowerLoss).
func (w *workload) calm() bool {
	return w.opts.UnboundedPowerLoss || !slices.Contains(w.powerLost, true)
}

// mayLosePower lists the running brokers whose every partition has at
// least min.insync.replicas live, unfenced ISR members: losing this
// broker's unsynced writes leaves each acknowledged record on another
// in-sync replica, which the controller will prefer.
func (w *workload) mayLosePower(c *cluster.Cluster) []int {
	img := c.Controller().Image()
	var ids []int
	for _, id := range w.alive(c) {
		ok := true
		for _, t := range img.Topics {
			for _, p := range t.Partitions {
				if p == nil || !slices.Contains(p.Replicas, int32(id)) {
					continue
				}
				live := 0
				for _, r := range p.ISR {
					if bi := img.Broker(r); bi != nil && !bi.Fenced && c.Broker(int(r)).Alive() {
						live++
					}
				}
				ok = ok && (w.opts.UnboundedPowerLoss || live >= minInsyncReplicas)
			}
		}
		if ok {
			ids = append(ids, id)
		}
	}
	return ids
}

// updatePowerLost clears a broker's power-loss mark once it runs, is
// unfenced and is back in the ISR of every partition it hosts.
func (w *workload) updatePowerLost(c *cluster.Cluster) {
	img := c.Controller().Image()
	for id := 1; id <= w.brokers; id++ {
		if !w.powerLost[id] || !c.Broker(id).Alive() {
			continue
		}
		if bi := img.Broker(int32(id)); bi == nil || bi.Fenced {
			continue
		}
		caughtUp := true
		for _, t := range img.Topics {
			for _, p := range t.Partitions {
				if p != nil && slices.Contains(p.Replicas, int32(id)) && !slices.Contains(p.ISR, int32(id)) {
					caughtUp = false
				}
			}
		}
		if caughtUp {
			w.powerLost[id] = false
		}
	}
}

func (w *workload) topic() topicSpec { return w.topics[w.rng.IntN(len(w.topics))] }

// produce sends 1-20 records through one of the producers. Values are
// unique in the run, so the checker can tell a lost record from another
// one that took its offset.
func (w *workload) produce() []string {
	r := w.rng
	t := w.topic()
	w.seq++
	p := w.producers[r.IntN(len(w.producers))]
	count := 1 + r.IntN(20)
	if r.IntN(4) == 0 {
		count = 1
	}
	var target string
	switch r.IntN(4) {
	case 0:
		target = " key=k{i}"
	case 1:
		target = " key=hot"
	case 2:
		target = fmt.Sprintf(" partition=%d", r.IntN(t.partitions))
	}
	value := fmt.Sprintf(" value=%s.%d.{i}", p, w.seq)
	if t.kind == "compact" {
		// A compacted topic takes keyed records only; a tombstone deletes
		// its key once the cleaner passes and delete.retention.ms expires.
		target = pickString(r, " key=k{i}", " key=hot", fmt.Sprintf(" key=k{i} partition=%d", r.IntN(t.partitions)))
		if r.IntN(5) == 0 {
			value = " tombstone=true"
		}
	}
	return []string{fmt.Sprintf("produce %s%s%s count=%d producer=%s", t.name, target, value, count, p)}
}

// consume creates one of at most two consumers, or polls one.
func (w *workload) consume() []string {
	r := w.rng
	if len(w.consumers) < maxConsumers && (len(w.consumers) == 0 || r.IntN(4) == 0) {
		name := "c" + strconv.Itoa(len(w.consumers))
		w.consumers = append(w.consumers, name)
		return []string{fmt.Sprintf("consumer create %s topics=%s auto.offset.reset=earliest", name, w.topic().name)}
	}
	return []string{fmt.Sprintf("poll %s max=%d timeout=%dms", w.consumers[r.IntN(len(w.consumers))], 1+r.IntN(100), 10+r.IntN(500))}
}

// crash kills one of the candidate brokers, often a partition's leader,
// since that is where the interesting failures are.
func (w *workload) crash(c *cluster.Cluster, candidates []int, power bool) []string {
	id := candidates[w.rng.IntN(len(candidates))]
	var leaders []int
	for _, l := range w.liveLeaders(c) {
		if slices.Contains(candidates, l) {
			leaders = append(leaders, l)
		}
	}
	if len(leaders) > 0 && w.rng.IntN(2) == 0 {
		id = leaders[w.rng.IntN(len(leaders))]
	}
	if power {
		w.powerLost[id] = true
		return []string{fmt.Sprintf("broker crash %d power=true", id)}
	}
	return []string{fmt.Sprintf("broker crash %d", id)}
}

func (w *workload) restart(c *cluster.Cluster) []string {
	ids := w.restartable(c)
	return []string{fmt.Sprintf("broker restart %d", ids[w.rng.IntN(len(ids))])}
}

// liveLeaders lists the running brokers that lead some partition, in
// topic and partition order (duplicates kept: busier leaders weigh more).
func (w *workload) liveLeaders(c *cluster.Cluster) []int {
	var ids []int
	for _, t := range c.Controller().Image().Topics {
		for _, p := range t.Partitions {
			if p != nil && p.Leader > 0 && c.Broker(int(p.Leader)).Alive() {
				ids = append(ids, int(p.Leader))
			}
		}
	}
	return ids
}

// partition splits the brokers in two non-empty groups; with
// ControllerPartitions the controller sometimes joins one of them, so the
// other loses its heartbeats.
func (w *workload) partition() []string {
	r := w.rng
	ids := make([]string, w.brokers)
	for i := range ids {
		ids[i] = strconv.Itoa(i + 1)
	}
	r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	cut := 1 + r.IntN(w.brokers-1)
	a, b := slices.Clone(ids[:cut]), slices.Clone(ids[cut:])
	if w.opts.ControllerPartitions {
		switch r.IntN(3) {
		case 0:
			a = append(a, "ctl")
		case 1:
			b = append(b, "ctl")
		}
	}
	return []string{fmt.Sprintf("net partition (%s) (%s)", strings.Join(a, ","), strings.Join(b, ","))}
}

// drop loses a few (or, count=0, all until healed) messages of one kind.
func (w *workload) drop() []string {
	r := w.rng
	count := 1 + r.IntN(10)
	if r.IntN(4) == 0 {
		count = 0
	}
	broker := 1 + r.IntN(w.brokers)
	var rule string
	switch r.IntN(4) {
	case 0:
		rule = fmt.Sprintf("to=%d type=Fetch", broker)
	case 1:
		rule = fmt.Sprintf("from=%d type=FetchResponse", broker)
	case 2:
		rule = fmt.Sprintf("to=%d type=Produce", broker)
	default:
		rule = fmt.Sprintf("from=%d type=ProduceResponse", broker)
	}
	return []string{fmt.Sprintf("net drop %s count=%d", rule, count)}
}

// delay slows one link between two brokers, or a broker and a producer.
func (w *workload) delay() []string {
	r := w.rng
	w.delayed = true
	from := 1 + r.IntN(w.brokers)
	to := strconv.Itoa(1 + (from+r.IntN(w.brokers-1))%w.brokers)
	if r.IntN(3) == 0 {
		to = w.producers[r.IntN(len(w.producers))]
	}
	return []string{fmt.Sprintf("net delay from=%d to=%s latency=%dms", from, to, pick(r, 5, 50, 200, 1000, 3000))}
}

// leaderLoss is the acks=1 lesson: the leader of a partition stops
// feeding its followers, takes records, and dies before they copied them.
func (w *workload) leaderLoss(c *cluster.Cluster) []string {
	r := w.rng
	type led struct {
		topic     string
		partition int
		leader    int32
	}
	var ps []led
	for _, t := range c.Controller().Image().Topics {
		for i, p := range t.Partitions {
			if p != nil && p.Leader > 0 && c.Broker(int(p.Leader)).Alive() {
				ps = append(ps, led{t.Name, i, p.Leader})
			}
		}
	}
	x := ps[r.IntN(len(ps))]
	w.seq++
	p := w.producers[r.IntN(len(w.producers))]
	w.delayed = false // the heal below removes every delay
	return []string{
		fmt.Sprintf("net drop from=%d type=FetchResponse count=0", x.leader),
		fmt.Sprintf("produce %s partition=%d value=%s.%d.{i} count=%d producer=%s", x.topic, x.partition, p, w.seq, 1+r.IntN(5), p),
		fmt.Sprintf("broker crash %d", x.leader),
		"net heal",
	}
}

// heal is one round of the end-of-run recovery: the first heals the
// network and restarts the crashed controllers; each restarts the crashed
// brokers the controller has fenced, or waits a second for it to fence
// the others. Nothing left down: no lines.
func (w *workload) heal(c *cluster.Cluster, round int) []string {
	var lines []string
	if round == 0 {
		w.delayed = false
		lines = append(lines, "net heal")
		for _, id := range c.ControllersDown() {
			lines = append(lines, fmt.Sprintf("controller restart %d", id))
		}
	}
	down := len(c.Brokers()) - len(w.alive(c))
	for _, id := range w.restartable(c) {
		lines = append(lines, fmt.Sprintf("broker restart %d", id))
		down--
	}
	if down > 0 {
		lines = append(lines, "tick 1s")
	} else {
		lines = append(lines, w.healGroups(c)...)
		lines = append(lines, w.healTxns(c)...)
	}
	return lines
}

// uncleanLeaders lists the partitions of unclean.leader.election.enable
// topics whose leader runs.
func (w *workload) uncleanLeaders(c *cluster.Cluster) []led {
	var ps []led
	for _, t := range c.Controller().Image().Topics {
		if t.Config("unclean.leader.election.enable", "false") != "true" {
			continue
		}
		for i, p := range t.Partitions {
			if p != nil && p.Leader > 0 && c.Broker(int(p.Leader)).Alive() {
				ps = append(ps, led{t.Name, i, p.Leader, p.ISR})
			}
		}
	}
	return ps
}

type led struct {
	topic     string
	partition int
	leader    int32
	isr       []int32
}

// uncleanLoss: a leader takes records its followers do not copy and
// crashes with every other live ISR member (one broker always stays up),
// so whoever comes back first is elected uncleanly.
func (w *workload) uncleanLoss(c *cluster.Cluster) []string {
	r := w.rng
	ps := w.uncleanLeaders(c)
	x := ps[r.IntN(len(ps))]
	w.seq++
	p := w.producers[r.IntN(len(w.producers))]
	if w.acks1 != "" {
		p = w.acks1
	}
	w.delayed = false // the heal below removes every delay
	lines := []string{
		fmt.Sprintf("net drop from=%d type=FetchResponse count=0", x.leader),
		fmt.Sprintf("produce %s partition=%d value=%s.%d.{i} count=%d producer=%s", x.topic, x.partition, p, w.seq, 1+r.IntN(5), p),
		fmt.Sprintf("broker crash %d", x.leader),
	}
	alive := len(w.alive(c)) - 1
	for _, id := range x.isr {
		if id != x.leader && alive > 1 && c.Broker(int(id)).Alive() {
			lines = append(lines, fmt.Sprintf("broker crash %d", id))
			alive--
		}
	}
	return append(lines, "net heal")
}
