package raft

// The test harness: a whole quorum on one sim.Clock, sim.Scheduler and
// sim.Network (cluster), and a single real node whose peers are fakes the
// test speaks for by hand (solo), as Kafka's RaftClientTestContext does.
// Everything runs on virtual time: sched.Next and sched.Step, never the
// wall clock.

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// voterNode is VoterNode: voter id i lives at "c<i>".
func voterNode(id int32) sim.NodeID { return sim.NodeID("c" + strconv.Itoa(int(id))) }

// observerID is the node id of observer i ("b<i>"): brokers' ids are kept
// apart from the controllers'.
func observerID(i int) int32 { return int32(100 + i) }

// recListener records what a node hands its owner. Its state is the
// committed records (replaced by a snapshot); committed and all keep every
// Commit for the tests' invariants.
type recListener struct {
	name      sim.NodeID
	state     []protocol.MetadataRecord
	next      int64                            // the offset the next Commit must start at (this run)
	runCommit []protocol.MetadataEntry         // this run's commits, in order
	all       map[int64]protocol.MetadataEntry // every commit of every run, by offset
	snapshots []protocol.SnapshotID            // LoadSnapshot calls, every run
	leaders   [][2]int32                       // LeaderChange calls (leader, epoch), every run
	errs      []string
	onCommit  func(sim.NodeID, protocol.MetadataEntry)
	onLeader  func(sim.NodeID, int32, int32)
}

func newRecListener(name sim.NodeID) *recListener {
	return &recListener{name: name, all: map[int64]protocol.MetadataEntry{}}
}

// restart forgets the volatile state, as a restarted process would.
func (l *recListener) restart() { l.state, l.next, l.runCommit = nil, 0, nil }

func (l *recListener) Commit(entries []protocol.MetadataEntry) {
	for _, e := range entries {
		off := e.Record.Offset
		if off != l.next {
			l.errs = append(l.errs, fmt.Sprintf("%s: Commit of offset %d, expected %d", l.name, off, l.next))
		}
		if prev, ok := l.all[off]; ok && !reflect.DeepEqual(prev, e) {
			l.errs = append(l.errs, fmt.Sprintf("%s: offset %d committed as %+v, earlier as %+v", l.name, off, e, prev))
		}
		l.all[off] = e
		l.next = off + 1
		l.state = append(l.state, e.Record)
		l.runCommit = append(l.runCommit, e)
		if l.onCommit != nil {
			l.onCommit(l.name, e)
		}
	}
}

func (l *recListener) LoadSnapshot(snap Snapshot) {
	l.state = slices.Clone(snap.Records)
	l.next = snap.ID.EndOffset
	l.snapshots = append(l.snapshots, snap.ID)
}

func (l *recListener) LeaderChange(leader, epoch int32) {
	l.leaders = append(l.leaders, [2]int32{leader, epoch})
	if l.onLeader != nil {
		l.onLeader(l.name, leader, epoch)
	}
}

func (l *recListener) SnapshotRecords() []protocol.MetadataRecord { return slices.Clone(l.state) }

// member is one node of a cluster.
type member struct {
	id    int32
	addr  sim.NodeID
	voter bool
	cfg   Config
	node  *Node
	store *MemStore
	l     *recListener

	lastRole  Role
	lastEpoch int32
	lastHW    int64
}

// transitionRec is one observed change of a node's role or epoch.
type transitionRec struct {
	At    time.Duration
	Node  sim.NodeID
	Role  Role
	Epoch int32
}

type clusterOpts struct {
	voters    int
	observers int
	seed      uint64
	cfg       func(*Config) // adjusts every node's config
	noStart   bool
	// sharedIDs numbers observers as loglab numbers brokers: b1 is node 1,
	// like c1 (ids are unique per role, not across the cluster).
	sharedIDs bool
}

// cluster is N voters c1..cN and observers b1..bM on one simulated network.
type cluster struct {
	t      testing.TB
	clock  *sim.Clock
	sched  *sim.Scheduler
	net    *sim.Network
	voters []int32
	ms     []*member // voters, then observers
	byAddr map[sim.NodeID]*member
	events []string

	transitions []transitionRec
	// leaderOf is every node seen leading each epoch; announced every
	// leader a listener was told of in each epoch.
	leaderOf  map[int32]sim.NodeID
	announced map[int32]int32
	committed map[int64]protocol.MetadataEntry // every commit on any node, by offset
	// delivered counts messages delivered, by destination and kind.
	delivered map[sim.NodeID]map[string]int
	// recordMsgs keeps every delivered envelope in msgs.
	recordMsgs bool
	msgs       []*sim.Envelope
	violations []string
	steps      int
}

func newCluster(t testing.TB, o clusterOpts) *cluster {
	t.Helper()
	clock := &sim.Clock{}
	sched := sim.NewScheduler(clock)
	c := &cluster{t: t, clock: clock, sched: sched, net: sim.NewNetwork(sched), byAddr: map[sim.NodeID]*member{},
		leaderOf: map[int32]sim.NodeID{}, announced: map[int32]int32{}, committed: map[int64]protocol.MetadataEntry{},
		delivered: map[sim.NodeID]map[string]int{}}
	for i := 1; i <= o.voters; i++ {
		c.voters = append(c.voters, int32(i))
	}
	add := func(id int32, addr sim.NodeID, idx int) {
		cfg := DefaultConfig(id, addr, c.voters, voterNode)
		if o.cfg != nil {
			o.cfg(&cfg)
		}
		m := &member{id: id, addr: addr, voter: slices.Contains(c.voters, id) && voterNode(id) == addr, cfg: cfg, store: NewMemStore(), l: newRecListener(addr)}
		m.l.onCommit = c.noteCommit
		m.l.onLeader = c.noteLeader
		m.node = NewNode(cfg, c.net, sched, sim.NewRand(o.seed*1000+uint64(idx)), m.store, m.l, func(s string) {
			c.events = append(c.events, fmt.Sprintf("%v %s", clock.Elapsed(), s))
		})
		c.net.Attach(addr, func(env *sim.Envelope) {
			if c.recordMsgs {
				c.msgs = append(c.msgs, env)
			}
			k := c.delivered[env.To]
			if k == nil {
				k = map[string]int{}
				c.delivered[env.To] = k
			}
			k[env.Msg.Kind()]++
			m.node.Handle(env)
		})
		m.lastRole, m.lastEpoch = -1, -1
		c.ms = append(c.ms, m)
		c.byAddr[addr] = m
	}
	for i, id := range c.voters {
		add(id, voterNode(id), i+1)
	}
	for i := 1; i <= o.observers; i++ {
		id := observerID(i)
		if o.sharedIDs {
			id = int32(i)
		}
		add(id, sim.NodeID("b"+strconv.Itoa(i)), o.voters+i)
	}
	if !o.noStart {
		for _, m := range c.ms {
			c.start(m.addr)
		}
	}
	return c
}

func (c *cluster) noteCommit(from sim.NodeID, e protocol.MetadataEntry) {
	off := e.Record.Offset
	if prev, ok := c.committed[off]; ok && !reflect.DeepEqual(prev, e) {
		c.violate("offset %d committed on %s as %+v, elsewhere as %+v", off, from, e, prev)
		return
	}
	c.committed[off] = e
}

func (c *cluster) noteLeader(from sim.NodeID, leader, epoch int32) {
	if leader < 0 {
		return
	}
	if prev, ok := c.announced[epoch]; ok && prev != leader {
		c.violate("%s was told %d leads epoch %d, another node was told %d", from, leader, epoch, prev)
	}
	c.announced[epoch] = leader
}

func (c *cluster) violate(format string, args ...any) {
	c.violations = append(c.violations, fmt.Sprintf("%v: ", c.clock.Elapsed())+fmt.Sprintf(format, args...))
}

func (c *cluster) m(addr sim.NodeID) *member {
	m, ok := c.byAddr[addr]
	if !ok {
		c.t.Fatalf("no node %s", addr)
	}
	return m
}

func (c *cluster) node(addr sim.NodeID) *Node { return c.m(addr).node }

func (c *cluster) start(addr sim.NodeID) {
	c.t.Helper()
	m := c.m(addr)
	c.net.SetDown(addr, false)
	m.l.restart()
	m.lastHW = -1
	if err := m.node.Start(); err != nil {
		c.t.Fatalf("start %s: %v", addr, err)
	}
	c.observe()
}

// crash stops a node as a process crash would: its sockets close and its
// volatile state goes; its store stays.
func (c *cluster) crash(addr sim.NodeID) {
	m := c.m(addr)
	c.net.SetDown(addr, true)
	m.node.Crash()
	c.observe()
}

// isolate partitions addr away from every other node.
func (c *cluster) isolate(addr sim.NodeID) {
	var rest []sim.NodeID
	for _, m := range c.ms {
		if m.addr != addr {
			rest = append(rest, m.addr)
		}
	}
	c.net.Partition([][]sim.NodeID{{addr}, rest})
}

func (c *cluster) partition(groups ...[]sim.NodeID) { c.net.Partition(groups) }

func (c *cluster) heal() { c.net.Heal() }

// observe records role and epoch changes and checks the invariants that
// hold after every event.
func (c *cluster) observe() {
	for _, m := range c.ms {
		n := m.node
		if !n.Up() {
			continue
		}
		if n.Role() != m.lastRole || n.Epoch() != m.lastEpoch {
			c.transitions = append(c.transitions, transitionRec{c.clock.Elapsed(), m.addr, n.Role(), n.Epoch()})
			m.lastRole, m.lastEpoch = n.Role(), n.Epoch()
		}
		if n.Role() == Leader {
			if prev, ok := c.leaderOf[n.Epoch()]; ok && prev != m.addr {
				c.violate("two leaders in epoch %d: %s and %s", n.Epoch(), prev, m.addr)
			}
			c.leaderOf[n.Epoch()] = m.addr
		}
		if !m.voter && (n.Role() == Prospective || n.Role() == Candidate || n.Role() == Leader || n.Role() == Resigned) {
			c.violate("observer %s is %v", m.addr, n.Role())
		}
		if hw := n.HighWatermark(); hw < m.lastHW {
			c.violate("%s: high watermark went back from %d to %d", m.addr, m.lastHW, hw)
		} else {
			m.lastHW = hw
		}
		if hw := n.HighWatermark(); hw > n.Log().EndOffset() {
			c.violate("%s: high watermark %d past the log end %d", m.addr, hw, n.Log().EndOffset())
		}
	}
}

// step runs one event; false when nothing is scheduled.
func (c *cluster) step() bool {
	if _, ok := c.sched.Step(); !ok {
		return false
	}
	c.steps++
	c.observe()
	return true
}

// runUntil runs events until pred holds (checked before every event) or
// virtual time would pass now+limit; it reports whether pred held. The
// clock ends at the deadline when pred never held.
func (c *cluster) runUntil(limit time.Duration, pred func() bool) bool {
	deadline := c.clock.Elapsed() + limit
	for {
		if pred() {
			return true
		}
		at, ok := c.sched.Next()
		if !ok || at > deadline {
			break
		}
		c.step()
	}
	if now := c.clock.Elapsed(); now < deadline {
		c.clock.Advance(deadline - now)
	}
	return pred()
}

// run runs every event of the next d of virtual time.
func (c *cluster) run(d time.Duration) { c.runUntil(d, func() bool { return false }) }

// must runs until pred holds, failing the test when it does not within limit.
func (c *cluster) must(limit time.Duration, what string, pred func() bool) {
	c.t.Helper()
	if !c.runUntil(limit, pred) {
		c.t.Fatalf("at %v: not %s within %v\n%s", c.clock.Elapsed(), what, limit, c.describe())
	}
}

// leader is the ready leader (one that may Append), or nil.
func (c *cluster) leader() *member {
	var out *member
	for _, m := range c.ms {
		if m.node.Ready() {
			if out != nil && out.node.Epoch() == m.node.Epoch() {
				c.violate("two ready leaders in epoch %d", m.node.Epoch())
			}
			if out == nil || m.node.Epoch() > out.node.Epoch() {
				out = m
			}
		}
	}
	return out
}

// waitLeader runs until a leader is ready and returns it.
func (c *cluster) waitLeader(limit time.Duration) *member {
	c.t.Helper()
	c.must(limit, "a ready leader", func() bool { return c.leader() != nil })
	return c.leader()
}

// appendOn appends n records tagged tag on m, which must be the ready leader.
func (c *cluster) appendOn(m *member, n int, tag string) []protocol.MetadataRecord {
	c.t.Helper()
	out, err := m.node.Append(records(n, tag))
	if err != nil {
		c.t.Fatalf("append on %s: %v", m.addr, err)
	}
	c.observe()
	return out
}

func records(n int, tag string) []protocol.MetadataRecord {
	recs := make([]protocol.MetadataRecord, n)
	for i := range recs {
		recs[i] = protocol.MetadataRecord{Type: "Topic", Topic: fmt.Sprintf("%s-%d", tag, i), Partitions: int32(i + 1)}
	}
	return recs
}

// converged: a ready leader has committed its whole log and every node
// that is up holds the same log end and high watermark.
func (c *cluster) converged() bool {
	l := c.leader()
	if l == nil || l.node.HighWatermark() != l.node.Log().EndOffset() {
		return false
	}
	for _, m := range c.ms {
		if !m.node.Up() {
			continue
		}
		if m.node.HighWatermark() != l.node.HighWatermark() || m.node.Log().EndOffset() != l.node.Log().EndOffset() {
			return false
		}
	}
	return true
}

// checkInvariants fails the test on any invariant broken so far.
func (c *cluster) checkInvariants() {
	c.t.Helper()
	var errs []string
	errs = append(errs, c.violations...)
	for _, e := range c.events {
		if strings.Contains(e, "INVARIANT") {
			errs = append(errs, e)
		}
	}
	for _, m := range c.ms {
		errs = append(errs, m.l.errs...)
	}
	if len(errs) > 0 {
		if len(errs) > 10 {
			errs = errs[:10]
		}
		c.t.Fatalf("invariants broken:\n%s\n%s", fmt.Sprint(errs), c.describe())
	}
}

// entriesFrom lists a node's log entries from offset from to its end.
func entriesFrom(n *Node, from int64) []protocol.MetadataEntry {
	l := n.Log()
	from = max(from, l.StartOffset())
	return l.Entries(from, int(l.EndOffset()-from))
}

// sameLogs reports where two nodes' logs first differ on the offsets both
// hold as entries ("" when they agree and end at the same offset).
func sameLogs(a, b *Node) string {
	if a.Log().EndOffset() != b.Log().EndOffset() {
		return fmt.Sprintf("log ends %d and %d", a.Log().EndOffset(), b.Log().EndOffset())
	}
	from := max(a.Log().StartOffset(), b.Log().StartOffset())
	for off := from; off < a.Log().EndOffset(); off++ {
		ea, _ := a.Log().Entry(off)
		eb, _ := b.Log().Entry(off)
		if !reflect.DeepEqual(ea, eb) {
			return fmt.Sprintf("offset %d: %+v vs %+v", off, ea, eb)
		}
	}
	return ""
}

func (c *cluster) describe() string {
	s := ""
	for _, m := range c.ms {
		st := m.node.Status()
		s += fmt.Sprintf("  %s up=%v %v epoch=%d leader=%d voted=%d log=[%d,%d) lastEpoch=%d hw=%d snap=%d\n", m.addr, st.Up, st.Role, st.Epoch,
			st.LeaderID, st.VotedID, st.LogStart, st.LogEnd, st.LastEpoch, st.HighWatermark, st.SnapshotEnd)
	}
	s += "  network: " + c.net.Describe() + "\n"
	ev := c.events
	if len(ev) > 25 {
		ev = ev[len(ev)-25:]
	}
	for _, e := range ev {
		s += "    " + e + "\n"
	}
	return s
}

// roleHistory is the transitions of one node.
func (c *cluster) roleHistory(addr sim.NodeID) []transitionRec {
	var out []transitionRec
	for _, tr := range c.transitions {
		if tr.Node == addr {
			out = append(out, tr)
		}
	}
	return out
}

// solo is one real node among fake peers: the test delivers the peers'
// messages by hand and reads what the node sent them (Kafka's
// RaftClientTestContext).
type solo struct {
	t      testing.TB
	clock  *sim.Clock
	sched  *sim.Scheduler
	net    *sim.Network
	addr   sim.NodeID
	node   *Node
	store  *MemStore
	l      *recListener
	inbox  []*sim.Envelope // messages the node sent that reached a fake peer
	events []string
}

type soloOpts struct {
	id        int32
	voters    []int32
	observers int // fake observers b1..bN to attach
	seed      uint64
	cfg       func(*Config)
	preload   func(*MemStore) // fills the store before Start
	addr      sim.NodeID      // defaults to voterNode(id)
}

func newSolo(t testing.TB, o soloOpts) *solo {
	t.Helper()
	clock := &sim.Clock{}
	sched := sim.NewScheduler(clock)
	s := &solo{t: t, clock: clock, sched: sched, net: sim.NewNetwork(sched), store: NewMemStore(), addr: o.addr}
	if s.addr == "" {
		s.addr = voterNode(o.id)
	}
	s.l = newRecListener(s.addr)
	cfg := DefaultConfig(o.id, s.addr, o.voters, voterNode)
	if o.cfg != nil {
		o.cfg(&cfg)
	}
	if o.preload != nil {
		o.preload(s.store)
	}
	s.node = NewNode(cfg, s.net, sched, sim.NewRand(o.seed), s.store, s.l, func(e string) { s.events = append(s.events, e) })
	s.net.Attach(s.addr, func(env *sim.Envelope) { s.node.Handle(env) })
	fake := func(env *sim.Envelope) { s.inbox = append(s.inbox, env) }
	for _, v := range o.voters {
		if voterNode(v) != s.addr {
			s.net.Attach(voterNode(v), fake)
		}
	}
	for i := 1; i <= o.observers; i++ {
		s.net.Attach(sim.NodeID("b"+strconv.Itoa(i)), fake)
	}
	if err := s.node.Start(); err != nil {
		t.Fatal(err)
	}
	s.flush()
	return s
}

// flush delivers what is on the wire (one hop), firing any timer due meanwhile.
func (s *solo) flush() {
	s.t.Helper()
	if _, err := s.sched.RunUntil(s.clock.Elapsed()+2*sim.DefaultLatency, 100000); err != nil {
		s.t.Fatal(err)
	}
}

// deliver hands msg from a fake peer to the node, then flushes its replies.
func (s *solo) deliver(from sim.NodeID, msg sim.Message) {
	s.t.Helper()
	s.node.Handle(&sim.Envelope{From: from, To: s.addr, Msg: msg, SentAt: s.clock.Elapsed(), DeliverAt: s.clock.Elapsed()})
	s.flush()
}

// advance runs d of virtual time.
func (s *solo) advance(d time.Duration) {
	s.t.Helper()
	if _, err := s.sched.RunUntil(s.clock.Elapsed()+d, 1000000); err != nil {
		s.t.Fatal(err)
	}
}

// advanceUntil runs events until pred holds, within limit.
func (s *solo) advanceUntil(limit time.Duration, what string, pred func() bool) {
	s.t.Helper()
	deadline := s.clock.Elapsed() + limit
	for !pred() {
		at, ok := s.sched.Next()
		if !ok || at > deadline {
			s.t.Fatalf("at %v: not %s within %v (role %v epoch %d)", s.clock.Elapsed(), what, limit, s.node.Role(), s.node.Epoch())
		}
		s.sched.Step()
	}
}

// take removes and returns what the node sent to peer `to` ("" any).
func (s *solo) take(to sim.NodeID) []*sim.Envelope {
	var out, keep []*sim.Envelope
	for _, e := range s.inbox {
		if to == "" || e.To == to {
			out = append(out, e)
		} else {
			keep = append(keep, e)
		}
	}
	s.inbox = keep
	return out
}

// sentOf returns (and removes) the messages of type T the node sent to `to`.
func sentOf[T sim.Message](s *solo, to sim.NodeID) []T {
	var out []T
	var keep []*sim.Envelope
	for _, e := range s.inbox {
		if m, ok := e.Msg.(T); ok && (to == "" || e.To == to) {
			out = append(out, m)
		} else {
			keep = append(keep, e)
		}
	}
	s.inbox = keep
	return out
}

// lastSent is the one message of type T the node sent to `to` since the
// inbox was last read; the test fails when there is not exactly one.
func lastSent[T sim.Message](s *solo, to sim.NodeID) T {
	s.t.Helper()
	got := sentOf[T](s, to)
	if len(got) != 1 {
		var zero T
		s.t.Fatalf("sent %d %T to %s, want 1: %+v", len(got), zero, to, got)
	}
	return got[0]
}

// electByHand drives the node from Unattached to Leader: its election
// timeout makes it prospective, the fake voters grant the pre-vote and
// then the vote. It returns the epoch it leads.
func (s *solo) electByHand(grantors ...int32) int32 {
	s.t.Helper()
	s.advanceUntil(3*time.Second, "prospective", func() bool { return s.node.Role() == Prospective })
	s.flush()
	epoch := s.node.Epoch()
	for _, g := range grantors {
		s.deliver(voterNode(g), protocol.VoteResponse{LeaderID: -1, LeaderEpoch: epoch, VoteGranted: true, PreVote: true})
	}
	if s.node.Role() != Candidate || s.node.Epoch() != epoch+1 {
		s.t.Fatalf("after pre-votes: %v in epoch %d, want Candidate in %d", s.node.Role(), s.node.Epoch(), epoch+1)
	}
	for _, g := range grantors {
		s.deliver(voterNode(g), protocol.VoteResponse{LeaderID: -1, LeaderEpoch: epoch + 1, VoteGranted: true})
	}
	if s.node.Role() != Leader {
		s.t.Fatalf("after votes: %v in epoch %d, want Leader", s.node.Role(), s.node.Epoch())
	}
	s.inbox = nil
	return s.node.Epoch()
}

// preload helpers: entries of the given epochs at offsets 0.., and a state.
func preloadLog(epochs ...int32) func(*MemStore) {
	return func(m *MemStore) {
		var es []protocol.MetadataEntry
		for i, e := range epochs {
			es = append(es, protocol.MetadataEntry{Epoch: e, Record: protocol.MetadataRecord{Offset: int64(i), Type: "Topic", Topic: fmt.Sprintf("t%d", i)}})
		}
		m.Append(es)
	}
}

func preloadState(epoch, leader, voted int32, log func(*MemStore)) func(*MemStore) {
	return func(m *MemStore) {
		if log != nil {
			log(m)
		}
		m.SaveState(QuorumState{LeaderID: leader, LeaderEpoch: epoch, VotedID: voted})
	}
}

// epochs builds a list of epochs: epochs(1, 3, 2, 5) is three entries of
// epoch 1 then five of epoch 2... pairs (epoch, count).
func epochs(pairs ...int32) []int32 {
	var out []int32
	for i := 0; i+1 < len(pairs); i += 2 {
		for j := int32(0); j < pairs[i+1]; j++ {
			out = append(out, pairs[i])
		}
	}
	return out
}
