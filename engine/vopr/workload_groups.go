package vopr

import (
	"fmt"
	"strconv"

	"github.com/loglab/loglab/engine/cluster"
)

// The workload's consumer groups (issue 12 item 8): one or two groups,
// each under one of the three protocols a Kafka 4 consumer speaks, whose
// members join, leave, crash, restart, stall past max.poll.interval.ms,
// poll and commit, while the brokers' faults go on and the coordinator
// (the leader of the group's __consumer_offsets partition) fails over.
// The checker watches the group invariants (one owner per partition,
// committed offsets never going back) on every event, and the run's final
// stabilize requires every group to converge.

// groupFlavours are the protocols a group is drawn under: the classic
// protocol's eager rebalances (range), its cooperative ones
// (cooperative-sticky), and KIP-848's group.protocol=consumer.
var groupFlavours = []string{"eager", "cooperative", "consumer"}

const (
	maxGroups       = 2
	maxGroupMembers = 4
	// Session and heartbeat timers a few seconds long, so members expire
	// and rebalance within a few workload steps. The broker's
	// group.min.session.timeout.ms is 6000; KIP-848 groups take theirs
	// from the cluster line.
	groupSessionMs   = 6000
	groupHeartbeatMs = 1000
)

type groupSpec struct {
	name    string
	flavour string
	topics  string
	members []memberSpec
	// readCommitted: the members read with isolation.level=read_committed,
	// as an exactly-once processor's consumer does (with transactions).
	readCommitted bool
}

type memberSpec struct {
	name     string
	static   bool
	maxPoll  int // max.poll.interval.ms
	created  bool
	settings string // the consumer create line's group settings
}

// groupClusterOptions are the cluster line's group settings: few
// __consumer_offsets partitions (so coordinators share brokers and fail
// over with them), KIP-848 session timers as short as the classic ones,
// and a short or no initial rebalance delay.
func (w *workload) groupClusterOptions() string {
	r := w.rng
	return fmt.Sprintf(" offsets.topic.num.partitions=%d group.initial.rebalance.delay.ms=%d group.consumer.session.timeout.ms=%d group.consumer.heartbeat.interval.ms=%d",
		1+r.IntN(5), pick(r, 0, 500, 3000), groupSessionMs, groupHeartbeatMs)
}

// setupGroups draws the groups and creates their first members.
func (w *workload) setupGroups() []string {
	r := w.rng
	var lines []string
	for i := range 1 + r.IntN(maxGroups) {
		g := groupSpec{name: "g" + strconv.Itoa(i), flavour: groupFlavours[r.IntN(len(groupFlavours))], topics: w.topic().name}
		if len(w.topics) > 1 && r.IntN(3) == 0 {
			g.topics = w.topics[0].name + "," + w.topics[1].name
		}
		autoCommit := r.IntN(3) != 0
		g.readCommitted = w.opts.Mix.Txn > 0 && r.IntN(2) == 0
		for m := range 2 + r.IntN(maxGroupMembers-1) {
			ms := memberSpec{name: fmt.Sprintf("%sm%d", g.name, m), static: r.IntN(3) == 0, maxPoll: pick(r, 5000, 10000, 20000)}
			ms.settings = w.memberSettings(g, ms, autoCommit)
			g.members = append(g.members, ms)
		}
		w.groups = append(w.groups, g)
	}
	for gi := range w.groups {
		g := &w.groups[gi]
		for mi := range g.members[:2] {
			lines = append(lines, w.createMember(g, mi))
		}
	}
	return lines
}

func (w *workload) memberSettings(g groupSpec, m memberSpec, autoCommit bool) string {
	s := ""
	switch g.flavour {
	case "eager":
		s = " partition.assignment.strategy=range"
	case "cooperative":
		s = " partition.assignment.strategy=cooperative-sticky"
	case "consumer":
		s = " group.protocol=consumer"
	}
	if g.flavour != "consumer" {
		s += fmt.Sprintf(" session.timeout.ms=%d heartbeat.interval.ms=%d", groupSessionMs, groupHeartbeatMs)
	}
	if m.static {
		s += " group.instance.id=" + m.name
	}
	if g.readCommitted {
		s += " isolation.level=read_committed"
	}
	s += fmt.Sprintf(" max.poll.interval.ms=%d enable.auto.commit=%t", m.maxPoll, autoCommit)
	if autoCommit {
		s += fmt.Sprintf(" auto.commit.interval.ms=%d", pick(w.rng, 1000, 5000))
	}
	return s
}

func (w *workload) createMember(g *groupSpec, i int) string {
	m := &g.members[i]
	m.created = true
	return fmt.Sprintf("consumer create %s group=%s topics=%s auto.offset.reset=earliest%s", m.name, g.name, g.topics, m.settings)
}

// memberRef names one member of one group.
type memberRef struct {
	g *groupSpec
	i int
}

func (ref memberRef) spec() memberSpec { return ref.g.members[ref.i] }

// members lists the created members that run (running) or not.
func (w *workload) members(c *cluster.Cluster, running bool) []memberRef {
	var out []memberRef
	for gi := range w.groups {
		g := &w.groups[gi]
		for i, m := range g.members {
			if !m.created {
				continue
			}
			if co := c.Consumer(m.name); co != nil && co.Closed() != running {
				out = append(out, memberRef{g, i})
			}
		}
	}
	return out
}

// uncreated lists the members not created yet.
func (w *workload) uncreated() []memberRef {
	var out []memberRef
	for gi := range w.groups {
		g := &w.groups[gi]
		for i, m := range g.members {
			if !m.created {
				out = append(out, memberRef{g, i})
			}
		}
	}
	return out
}

// groupAction is one step of the groups' workload.
func (w *workload) groupAction(c *cluster.Cluster) []string {
	r := w.rng
	running, stopped, fresh := w.members(c, true), w.members(c, false), w.uncreated()
	pickRef := func(refs []memberRef) memberSpec { return refs[r.IntN(len(refs))].spec() }
	type choice struct {
		weight int
		lines  func() []string
	}
	var cs []choice
	if len(running) > 0 {
		cs = append(cs,
			choice{6, func() []string {
				return []string{fmt.Sprintf("poll %s max=%d timeout=%dms", pickRef(running).name, 1+r.IntN(50), 10+r.IntN(300))}
			}},
			choice{4, func() []string {
				return []string{fmt.Sprintf("commit %s%s", pickRef(running).name, []string{"", " async"}[r.IntN(2)])}
			}},
			choice{2, func() []string { return []string{"consumer close " + pickRef(running).name} }},
			choice{2, func() []string { return []string{"consumer crash " + pickRef(running).name} }},
			// A stall: the application processes for longer than
			// max.poll.interval.ms, so the member leaves (classic: its
			// heartbeat thread sends LeaveGroup; KIP-848: it leaves with
			// epoch -1) and its batch is processed again by the next owner.
			choice{2, func() []string {
				m := pickRef(running)
				return []string{fmt.Sprintf("poll %s max=%d process=%dms", m.name, 1+r.IntN(20), m.maxPoll+pick(r, 500, 3000))}
			}},
		)
	}
	if len(stopped) > 0 {
		cs = append(cs, choice{4, func() []string { return []string{"consumer restart " + pickRef(stopped).name} }})
	}
	if len(fresh) > 0 {
		cs = append(cs, choice{2, func() []string {
			ref := fresh[r.IntN(len(fresh))]
			return []string{w.createMember(ref.g, ref.i)}
		}})
	}
	if ids := w.coordinators(c); len(ids) > 0 && len(w.alive(c)) > 1 && w.calm() {
		cs = append(cs, choice{2, func() []string {
			id := ids[r.IntN(len(ids))]
			return []string{fmt.Sprintf("%s b%d", coordinatorCrashComment, id), fmt.Sprintf("broker crash %d", id)}
		}})
	}
	total := 0
	for _, ch := range cs {
		total += ch.weight
	}
	if total == 0 {
		return []string{"tick 1s"}
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

// coordinatorCrashComment marks a coordinator's crash in the script, so
// TestVOPR can count the failovers the workload made.
const coordinatorCrashComment = "# crash a group coordinator:"

// coordinators lists the running brokers coordinating a workload group.
func (w *workload) coordinators(c *cluster.Cluster) []int {
	var ids []int
	for _, g := range w.groups {
		if gc := c.Coordinator(g.name); gc.Broker > 0 && c.Broker(gc.Broker).Alive() {
			ids = append(ids, gc.Broker)
		}
	}
	return ids
}

// healGroups restarts, at the end of a run, the members a fatal group
// error stopped (a KIP-848 static member restarted before its old
// incarnation expired gets UNRELEASED_INSTANCE_ID, which the consumer
// does not retry, as Kafka's does not): closed, left until the old
// member's session expired, and started again, as an operator would.
func (w *workload) healGroups(c *cluster.Cluster) []string {
	var stuck []string
	for _, ref := range w.members(c, true) {
		if co := c.Consumer(ref.spec().name); co.GroupError() != nil {
			stuck = append(stuck, ref.spec().name)
		}
	}
	if len(stuck) == 0 {
		return nil
	}
	var lines []string
	for _, name := range stuck {
		lines = append(lines, "consumer close "+name)
	}
	lines = append(lines, fmt.Sprintf("tick %dms", groupSessionMs+1000))
	for _, name := range stuck {
		lines = append(lines, "consumer restart "+name)
	}
	return lines
}
