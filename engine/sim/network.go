package sim

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// NodeID names a node on the simulated network: "b1" for broker 1, "ctl"
// for the controller, client ids for producers and consumers.
type NodeID string

// Message is anything sent between nodes. Kind is Kafka's API name
// ("Produce", "Fetch", "FetchResponse", ...): faults and the UI match on it.
type Message interface {
	Kind() string
}

// Envelope is a message in flight.
type Envelope struct {
	ID        uint64
	From, To  NodeID
	Msg       Message
	SentAt    time.Duration
	DeliverAt time.Duration
	// delivery is the scheduled arrival, cancelled when the message is
	// dropped on the wire by name (DropInFlight).
	delivery *Event
	// Fate is what happened to it: "" while in flight, then "delivered",
	// "dropped" (a drop rule or a partition) or "lost" (an endpoint was down).
	Fate string
}

// Handler receives messages for one node.
type Handler func(env *Envelope)

// DropRule drops messages matching From/To/Kind ("" matches any); Remaining
// counts how many more it drops (<0: until removed).
type DropRule struct {
	From, To  NodeID
	Kind      string
	Remaining int
}

// Network carries messages between nodes with per-link latency; it can cut
// links (partitions), drop chosen messages and delay links. Every send and
// delivery is recorded in Trace for the UI.
type Network struct {
	sched    *Scheduler
	handlers map[NodeID]Handler
	down     map[NodeID]bool
	// groups, when set, is a partition: nodes in different groups cannot
	// talk; nodes in no group reach everyone.
	groups map[NodeID]int
	// cuts are single links cut both ways (net cut A B).
	cuts linkCuts
	// hosts maps an address to the node that serves it (the active
	// controller's address to that controller): a link cut to the node
	// cuts its address too, as one process has one network interface.
	hosts    map[NodeID]NodeID
	latency  time.Duration
	delays   map[[2]NodeID]time.Duration
	drops    []*DropRule
	nextID   uint64
	inflight []*Envelope
	// sent counts, per node, every message it put on the wire, whatever
	// became of it: a node retrying a dead peer in a loop is busy too.
	sent map[NodeID]uint64
	// sentTo counts them per link (from, to): the checker tells a
	// broker's answers to a client's requests from its own sending.
	sentTo map[[2]NodeID]uint64
	Trace  *Trace
}

// DefaultLatency is one network hop.
const DefaultLatency = time.Millisecond

// NewNetwork returns a network with no nodes.
func NewNetwork(sched *Scheduler) *Network {
	return &Network{
		sched: sched, handlers: map[NodeID]Handler{}, down: map[NodeID]bool{}, cuts: linkCuts{},
		latency: DefaultLatency, delays: map[[2]NodeID]time.Duration{}, sent: map[NodeID]uint64{}, sentTo: map[[2]NodeID]uint64{}, Trace: NewTrace(200),
	}
}

// Attach registers the handler for a node (replacing any earlier one).
func (n *Network) Attach(id NodeID, h Handler) { n.handlers[id] = h; delete(n.down, id) }

// Disconnected tells a node that its connection to Peer closed: the peer's
// process died (its kernel resets the sockets) or refused a connection.
// Clients fail their in-flight requests to it at once instead of waiting
// for request.timeout.ms. A network partition sends no such notice.
type Disconnected struct{ Peer NodeID }

func (Disconnected) Kind() string { return "Disconnect" }

// SetDown marks a node crashed (true) or back (false). A down node neither
// sends nor receives; messages to it are lost, and every other node hears
// that its connections to it closed.
func (n *Network) SetDown(id NodeID, down bool) {
	if !down {
		delete(n.down, id)
		return
	}
	if n.down[id] {
		return
	}
	n.down[id] = true
	// Whatever was on its way to the dead process dies with its sockets: a
	// restarted process must never receive its predecessor's answers.
	for _, e := range n.inflight {
		if e.To == id {
			e.Fate = "lost"
		}
	}
	for _, other := range n.nodes() {
		if other != id && !n.down[other] {
			n.notify(other, id)
		}
	}
}

// nodes lists attached nodes in a stable order.
func (n *Network) nodes() []NodeID {
	ids := make([]NodeID, 0, len(n.handlers))
	for id := range n.handlers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// notify tells node that its connection to peer closed, one hop later.
func (n *Network) notify(node, peer NodeID) {
	env := &Envelope{From: peer, To: node, Msg: Disconnected{Peer: peer}, SentAt: n.sched.Clock.Elapsed(), DeliverAt: n.sched.Clock.Elapsed() + n.latency}
	n.sched.After(n.latency, fmt.Sprintf("disconnect %s->%s", peer, node), func() {
		if h, ok := n.handlers[node]; ok && !n.down[node] {
			env.Fate = "delivered"
			h(env)
		}
	})
}

// IsDown reports whether a node is down.
func (n *Network) IsDown(id NodeID) bool { return n.down[id] }

// Partition splits the network into groups; Heal removes the split, the
// drop rules and the delays.
func (n *Network) Partition(groups [][]NodeID) {
	n.groups = map[NodeID]int{}
	for i, g := range groups {
		for _, id := range g {
			n.groups[id] = i + 1
		}
	}
}

// Heal reconnects everything: the partition, every cut link, the drop
// rules and the delays.
func (n *Network) Heal() {
	n.groups = nil
	n.cuts = linkCuts{}
	n.drops = nil
	n.delays = map[[2]NodeID]time.Duration{}
}

// Drop adds a drop rule.
func (n *Network) Drop(rule DropRule) { n.drops = append(n.drops, &rule) }

// Delay sets the one-way latency of the link from -> to.
func (n *Network) Delay(from, to NodeID, d time.Duration) { n.delays[[2]NodeID{from, to}] = d }

// CutLink cuts the link between a and b in both directions, leaving the
// partition and every other link as they are; it reports false when the
// link was already cut. Messages already on the link never arrive.
func (n *Network) CutLink(a, b NodeID) bool { return n.cuts.cut(a, b) }

// HealLink reconnects the link between a and b; it reports false when
// it was not cut.
func (n *Network) HealLink(a, b NodeID) bool { return n.cuts.heal(a, b) }

// LinkCut reports whether the link between a and b is cut (net cut),
// directly or through the nodes hosting them.
func (n *Network) LinkCut(a, b NodeID) bool {
	return n.cuts.separates(a, b) || n.cuts.separates(n.HostOf(a), n.HostOf(b))
}

// Host makes node serve address (another name for it on the network, as
// the active controller's address is one controller's): links cut to
// node are cut to address as well. An empty node ends it.
func (n *Network) Host(address, node NodeID) {
	if node == "" {
		delete(n.hosts, address)
		return
	}
	if n.hosts == nil {
		n.hosts = map[NodeID]NodeID{}
	}
	n.hosts[address] = node
}

// HostOf is the node serving id: id itself unless Host said otherwise.
func (n *Network) HostOf(id NodeID) NodeID {
	if h, ok := n.hosts[id]; ok {
		return h
	}
	return id
}

// CutLinks lists the cut links, sorted, each with its ends sorted.
func (n *Network) CutLinks() [][2]NodeID { return n.cuts.list() }

// Connected reports whether a message from one node reaches the other:
// neither a partition nor a cut link separates them.
func (n *Network) Connected(from, to NodeID) bool {
	return !n.LinkCut(from, to) && !n.Partitioned(from, to)
}

// Partitioned reports whether a partition puts from and to on different
// sides (a cut link is not a partition: its ends have no sides).
func (n *Network) Partitioned(from, to NodeID) bool {
	if n.groups == nil {
		return false
	}
	gf, okf := n.groups[from]
	gt, okt := n.groups[to]
	return okf && okt && gf != gt
}

// Send puts a message on the wire. It is delivered after the link's
// latency unless a partition, a drop rule or a down endpoint intervenes;
// like TCP under a partition, a cut message simply never arrives.
func (n *Network) Send(from, to NodeID, msg Message) *Envelope {
	n.nextID++
	n.sent[from]++
	n.sentTo[[2]NodeID{from, to}]++
	latency := n.latency
	if d, ok := n.delays[[2]NodeID{from, to}]; ok {
		latency = d
	}
	now := n.sched.Clock.Elapsed()
	env := &Envelope{ID: n.nextID, From: from, To: to, Msg: msg, SentAt: now, DeliverAt: now + latency}
	if n.down[from] {
		env.Fate = "lost"
		n.Trace.add(env)
		return env
	}
	if n.down[to] {
		// Connection refused: the sender learns at once.
		env.Fate = "lost"
		n.Trace.add(env)
		n.notify(from, to)
		return env
	}
	if !n.Connected(from, to) || n.matchDrop(env) {
		env.Fate = "dropped"
		n.Trace.add(env)
		return env
	}
	n.inflight = append(n.inflight, env)
	n.Trace.add(env)
	// Concatenated, not formatted: one event per message, so this is on
	// every command's hot path (the event budget's cost per event).
	env.delivery = n.sched.After(latency, "deliver "+msg.Kind()+" "+string(from)+"->"+string(to), func() { n.deliver(env) })
	return env
}

func (n *Network) matchDrop(env *Envelope) bool {
	for i, r := range n.drops {
		if (r.From == "" || r.From == env.From) && (r.To == "" || r.To == env.To) && (r.Kind == "" || r.Kind == env.Msg.Kind()) {
			if r.Remaining > 0 {
				r.Remaining--
				if r.Remaining == 0 {
					n.drops = slices.Delete(n.drops, i, i+1)
				}
			}
			return true
		}
	}
	return false
}

func (n *Network) deliver(env *Envelope) {
	n.inflight = slices.DeleteFunc(n.inflight, func(e *Envelope) bool { return e == env })
	h, ok := n.handlers[env.To]
	switch {
	case env.Fate == "lost" || n.down[env.To] || !ok:
		env.Fate = "lost"
	case !n.Connected(env.From, env.To):
		env.Fate = "dropped" // cut while in flight
	default:
		env.Fate = "delivered"
		h(env)
	}
}

// DropInFlight drops the message with the given id while it is on the
// wire (net drop id=N): it never arrives, and its sender learns nothing,
// as with a partition; it times out (request.timeout.ms) and retries.
func (n *Network) DropInFlight(id uint64) (*Envelope, error) {
	for i, e := range n.inflight {
		if e.ID != id {
			continue
		}
		if e.Fate != "" {
			return nil, fmt.Errorf("message %d is already %s", id, e.Fate)
		}
		e.Fate = "dropped"
		e.delivery.Cancelled = true
		n.inflight = slices.Delete(n.inflight, i, i+1)
		return e, nil
	}
	if id == 0 || id > n.nextID {
		return nil, fmt.Errorf("no message %d: messages are numbered 1-%d", id, n.nextID)
	}
	return nil, fmt.Errorf("message %d is not in flight (show network lists the messages on the wire)", id)
}

// Sent counts the messages node has sent since the network was made,
// delivered or not (the liveness checker's busy-loop measure).
func (n *Network) Sent(node NodeID) uint64 { return n.sent[node] }

// SentTo counts the messages from has sent to to, as Sent counts them.
func (n *Network) SentTo(from, to NodeID) uint64 { return n.sentTo[[2]NodeID{from, to}] }

// Faulty reports whether a partition, a cut link or a drop rule is in force: faults
// that can keep a cluster from converging however long it runs (a delay
// only slows it).
func (n *Network) Faulty() bool { return n.groups != nil || len(n.cuts) > 0 || len(n.drops) > 0 }

// Dropping reports whether a drop rule is in force.
func (n *Network) Dropping() bool { return len(n.drops) > 0 }

// Drops reports whether a drop rule in force would drop a message of kind
// from one node to the other (a rule with a count left drops it too).
func (n *Network) Drops(from, to NodeID, kind string) bool {
	return slices.ContainsFunc(n.drops, func(r *DropRule) bool {
		return (r.From == "" || r.From == from) && (r.To == "" || r.To == to) && (r.Kind == "" || r.Kind == kind)
	})
}

// Partitioning reports whether a partition is in force.
func (n *Network) Partitioning() bool { return n.groups != nil }

// InFlight lists messages on the wire, oldest first.
func (n *Network) InFlight() []*Envelope { return slices.Clone(n.inflight) }

// Idle reports whether no message is on the wire, without InFlight's copy:
// Stabilize asks it after every event.
func (n *Network) Idle() bool { return len(n.inflight) == 0 }

// Describe summarises the network's faults for `show network`.
func (n *Network) Describe() string {
	var parts []string
	if n.groups != nil {
		byGroup := map[int][]string{}
		maxGroup := 0
		for id, g := range n.groups {
			byGroup[g] = append(byGroup[g], string(id))
			maxGroup = max(maxGroup, g)
		}
		var gs []string
		for g := 1; g <= maxGroup; g++ {
			ids := byGroup[g]
			slices.Sort(ids)
			gs = append(gs, "("+strings.Join(ids, ",")+")")
		}
		parts = append(parts, "partitioned "+strings.Join(gs, " "))
	}
	for _, k := range n.cuts.list() {
		parts = append(parts, fmt.Sprintf("cut %s-%s", k[0], k[1]))
	}
	for _, r := range n.drops {
		parts = append(parts, fmt.Sprintf("dropping %s from=%s to=%s", nonEmpty(r.Kind, "any"), nonEmpty(string(r.From), "any"), nonEmpty(string(r.To), "any")))
	}
	keys := make([][2]NodeID, 0, len(n.delays))
	for k := range n.delays {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]NodeID) int { return strings.Compare(string(a[0])+string(a[1]), string(b[0])+string(b[1])) })
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("delay %s->%s %v", k[0], k[1], n.delays[k]))
	}
	if len(parts) == 0 {
		return "network healthy"
	}
	return strings.Join(parts, "; ")
}

func nonEmpty(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
