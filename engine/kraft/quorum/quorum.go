// Package quorum is the KRaft controller quorum on hashicorp/raft: N
// controllers (1-5, three by default) in one process replicate the metadata
// log, and each replays it into its own kraft.Image, as Kafka's active and
// standby controllers do. The raft leader is the active controller.
//
// It is one of the two engine packages allowed to touch the outside world
// (engine/forbidden_test.go): hashicorp/raft runs on real time and
// goroutines, and natively this package writes files. The deterministic
// core sees only kraft.MetadataLog: Append blocks until the quorum has
// committed the records, so a simulation that waits for it stays
// deterministic however long raft took (docs/architecture.md).
//
// Two modes:
//
//   - In memory (Config.Dir empty; WASM and tests): raft's InmemStore and
//     InmemSnapshotStore. A crashed controller's stores survive in memory,
//     as a disk would.
//   - Native (Config.Dir set): under Dir/controller-N, the raft log is kept
//     in a Kafka segment log, __cluster_metadata-0/ (see segmentStore), raft's
//     term and vote in quorum-state (see stateStore), and snapshots in raft's
//     FileSnapshotStore, snapshots/. Closing the quorum and opening it again
//     on the same Dir restores the metadata.
//
// In both modes the controllers talk through raft.InmemTransport, behind a
// link that knows which controllers are up (see switchboard). Elections are
// made predictable by giving controllers timeouts by role (see timing.go):
// controller 1 wins the first election, and when the leader crashes the
// lowest-numbered survivor takes over.
//
// WASM has one thread and no preemption: the caller must not hold it for
// tens of milliseconds at a time, or raft's timers starve and elections
// follow (docs/architecture.md). Append and New block their goroutine on raft; in the
// browser, call them from a goroutine, never from a JS callback directly.
package quorum

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/loglab/loglab/engine/storage"
	"github.com/loglab/loglab/engine/storage/osfs"
)

// Config configures a quorum. Zero fields take the defaults.
type Config struct {
	// Controllers is the number of controllers, 1 to 5 (3).
	Controllers int
	// Dir, when set, keeps every controller's log, state and snapshots in
	// files under it (native mode); empty keeps them in memory.
	Dir string

	// HeartbeatTimeout is T, the unit of every raft timeout (50 ms): a
	// follower starts an election after T to 5T without a leader, by role
	// (timing.go); the leader sends heartbeats every T/10 and steps down
	// when it has not heard from a majority for LeaderLeaseTimeout = T.
	HeartbeatTimeout time.Duration
	// CommitTimeout is how long the leader waits before telling followers
	// a new commit index when no appends are flowing (2 ms).
	CommitTimeout time.Duration

	// SnapshotThreshold is how many raft entries a controller lets pile up
	// since its last snapshot before it takes another (64); each controller
	// checks every SnapshotInterval to 2×SnapshotInterval (200 ms).
	SnapshotThreshold uint64
	SnapshotInterval  time.Duration
	// SnapshotOnCommit takes snapshots at the same raft indexes on every
	// run: raft's wall-clock snapshot timer is off, and after an Append the
	// quorum settles and every live controller snapshots once the active
	// controller is SnapshotThreshold entries past its last one (see
	// settle.go). The simulation uses it so that transcripts repeat.
	SnapshotOnCommit bool
	// TrailingLogs is how many entries a snapshot leaves in the log (16),
	// so that a follower a little behind catches up from the log; one
	// further behind gets the snapshot.
	TrailingLogs uint64
	// SegmentBytes is the metadata log's segment.bytes in native mode
	// (16 KiB: small, so lessons see segments roll and be deleted).
	SegmentBytes int64

	// LeaderWait is how long Append waits for an active controller before
	// it gives up with NOT_CONTROLLER (2 s); New waits for the first
	// election as long.
	LeaderWait time.Duration

	// Logger receives hashicorp/raft's logs; nil discards them.
	Logger hclog.Logger

	hooks *hooks // tests only (hooks.go)
}

func (c Config) withDefaults() (Config, error) {
	if c.Controllers == 0 {
		c.Controllers = 3
	}
	if c.Controllers < 1 || c.Controllers > 5 {
		return c, fmt.Errorf("quorum: %d controllers: must be 1 to 5", c.Controllers)
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&c.HeartbeatTimeout, 50*time.Millisecond)
	def(&c.CommitTimeout, 2*time.Millisecond)
	def(&c.SnapshotInterval, 200*time.Millisecond)
	def(&c.LeaderWait, 2*time.Second)
	if c.HeartbeatTimeout < 5*time.Millisecond {
		return c, fmt.Errorf("quorum: HeartbeatTimeout %s: raft needs at least 5ms", c.HeartbeatTimeout)
	}
	if c.SnapshotThreshold == 0 {
		c.SnapshotThreshold = 64
	}
	if c.TrailingLogs == 0 {
		c.TrailingLogs = 16
	}
	if c.SegmentBytes == 0 {
		c.SegmentBytes = 16 << 10
	}
	if c.Logger == nil {
		c.Logger = hclog.NewNullLogger()
	}
	return c, nil
}

// ErrNotController is Kafka's NOT_CONTROLLER: no controller is active (the
// quorum has no leader, or lost its majority) within Config.LeaderWait.
var ErrNotController = errors.New("NOT_CONTROLLER")

// ErrClosed is returned after Close.
var ErrClosed = errors.New("quorum: closed")

// Quorum is a running controller quorum. Its methods are safe for
// concurrent use.
type Quorum struct {
	cfg   Config
	fs    storage.FS // native mode only
	nodes []*node    // nodes[i] is controller i+1
	sb    *switchboard
	nonce string
	seq   atomic.Uint64
	// uncertain counts proposals whose outcome a leader change hid (tests).
	uncertain atomic.Int64

	life   sync.Mutex // serialises Crash, Restart and Close
	mu     sync.Mutex // guards the nodes' state
	closed bool
	last   *fsm // the state machine Read and End used last

	obs  chan raft.Observation
	done chan struct{}
	wg   sync.WaitGroup
}

// node is one controller: its stores, which survive a crash, and the
// running process, which does not.
type node struct {
	id   int
	addr raft.ServerAddress

	logs   raft.LogStore
	stable raft.StableStore
	snaps  raft.SnapshotStore
	seg    *segmentStore // native mode: the segment log under logs

	p *proc // nil while crashed
}

// proc is one run of a controller, from start to crash.
type proc struct {
	raft      *raft.Raft
	fsm       *fsm
	link      *link
	observer  *raft.Observer
	timing    timing
	election  time.Duration // the election timeout raft has (timing's, or 1 ms more; see applyPlanFor)
	readyTerm atomic.Uint64 // the term in which this leader applied everything before it
	stopped   chan struct{} // closed when this run ends
}

// hangBound bounds every wait for something raft guarantees will happen
// soon: a future's answer, a shutdown, an election while a majority runs.
// Each takes milliseconds normally and seconds on a loaded machine or in
// WASM; the bound is far beyond that and only turns a bug (a raft
// goroutine stuck for ever, as raft's pipelined replication once left one)
// into an error that names what was awaited, instead of a hang.
const hangBound = time.Minute

// errRaftHung is what a wait that reached hangBound fails with.
var errRaftHung = errors.New("raft did not answer")

// wait waits for a future of this run; what names it for the error should
// raft not answer within hangBound. hashicorp/raft does not answer a
// future whose entry was committed but not yet applied when it shut down,
// so a crash answers it here instead, with ErrRaftShutdown.
func (p *proc) wait(f raft.Future, what string) error {
	done := make(chan error, 1)
	go func() { done <- f.Error() }()
	bound := time.NewTimer(hangBound)
	defer bound.Stop()
	select {
	case err := <-done:
		return err
	case <-p.stopped:
		return raft.ErrRaftShutdown
	case <-bound.C:
		return fmt.Errorf("quorum: %s: %w within %s", what, errRaftHung, hangBound)
	}
}

// shutdown stops this run's raft and waits (hangBound at most) until it
// has stopped. On an error that says raft hung, its goroutines may still
// use the stores: the caller must leave them open.
func (p *proc) shutdown(id int) error {
	p.raft.DeregisterObserver(p.observer)
	done := make(chan error, 1)
	go func() { done <- p.raft.Shutdown().Error() }()
	bound := time.NewTimer(hangBound)
	defer bound.Stop()
	select {
	case err := <-done:
		return err
	case <-bound.C:
		return fmt.Errorf("quorum: shutting controller %d down: %w within %s (a raft goroutine is stuck)", id, errRaftHung, hangBound)
	}
}

// New starts the controllers and waits until one of them is the active
// controller and has applied the whole log (after a reopen, everything
// committed before).
func New(cfg Config) (*Quorum, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	q := &Quorum{
		cfg:   cfg,
		sb:    newSwitchboard(),
		nonce: strconv.FormatInt(time.Now().UnixNano(), 36),
		obs:   make(chan raft.Observation, 64),
		done:  make(chan struct{}),
	}
	if cfg.Dir != "" {
		q.fs = osfs.New(cfg.Dir)
	}
	for id := 1; id <= cfg.Controllers; id++ {
		q.nodes = append(q.nodes, &node{id: id, addr: raft.ServerAddress(fmt.Sprintf("controller-%d", id))})
	}
	// Nobody knows a leader yet: the first in succession (controller 1,
	// unless a reopened log of another controller is more up to date) gets
	// the shortest timeout. Timers cannot be restarted here: with no leader
	// ever heard of, a restarted timer would start an election at once.
	q.mu.Lock()
	pos := map[int]logPosition{}
	for _, n := range q.nodes {
		if err := q.openStores(n); err != nil {
			q.mu.Unlock()
			q.Close()
			return nil, fmt.Errorf("quorum: opening controller %d's stores under %s: %w", n.id, q.cfg.Dir, err)
		}
		pos[n.id] = storedPosition(n)
	}
	order := successionOrder(pos)
	// The timeouts make the first in succession ask first; the gate makes
	// it win even when a loaded machine wakes it late.
	q.gateElection(order[0])
	plan := planTimings(cfg.HeartbeatTimeout, cfg.Controllers, 0, order)
	q.stretchCampaignerLocked(plan)
	for _, n := range q.nodes {
		if err := q.start(n, plan[n.id]); err != nil {
			q.mu.Unlock()
			q.Close()
			return nil, fmt.Errorf("quorum: starting controller %d: %w", n.id, err)
		}
	}
	q.mu.Unlock()
	q.wg.Add(1)
	go q.tune()
	if _, err := q.activeController(cfg.LeaderWait); err != nil {
		q.Close()
		return nil, fmt.Errorf("quorum: no controller was elected within %s: %w", cfg.LeaderWait, err)
	}
	return q, nil
}

// Controllers is the number of controllers.
func (q *Quorum) Controllers() int { return q.cfg.Controllers }

// Config is the configuration with its defaults filled in.
func (q *Quorum) Config() Config { return q.cfg }

func (q *Quorum) node(id int) (*node, error) {
	if id < 1 || id > len(q.nodes) {
		return nil, fmt.Errorf("quorum: no controller %d (there are %d)", id, len(q.nodes))
	}
	return q.nodes[id-1], nil
}

func (q *Quorum) raftConfig(id int, t timing) *raft.Config {
	rc := raft.DefaultConfig()
	rc.LocalID = raft.ServerID(strconv.Itoa(id))
	rc.HeartbeatTimeout, rc.ElectionTimeout = t.heartbeat, t.election
	rc.LeaderLeaseTimeout = q.cfg.HeartbeatTimeout
	rc.CommitTimeout = q.cfg.CommitTimeout
	rc.SnapshotThreshold = q.cfg.SnapshotThreshold
	rc.SnapshotInterval = q.snapshotInterval()
	rc.TrailingLogs = q.cfg.TrailingLogs
	rc.Logger = q.cfg.Logger.Named(fmt.Sprintf("controller-%d", id))
	return rc
}

func (q *Quorum) reloadable(t timing) raft.ReloadableConfig {
	return raft.ReloadableConfig{
		TrailingLogs:      q.cfg.TrailingLogs,
		SnapshotInterval:  q.snapshotInterval(),
		SnapshotThreshold: q.cfg.SnapshotThreshold,
		HeartbeatTimeout:  t.heartbeat,
		ElectionTimeout:   t.election,
	}
}

// voters is the configuration every controller is bootstrapped with.
func (q *Quorum) voters() raft.Configuration {
	var c raft.Configuration
	for _, n := range q.nodes {
		c.Servers = append(c.Servers, raft.Server{Suffrage: raft.Voter, ID: raft.ServerID(strconv.Itoa(n.id)), Address: n.addr})
	}
	return c
}

// start runs a controller on its stores. Callers hold q.mu.
func (q *Quorum) start(n *node, t timing) error {
	if err := q.openStores(n); err != nil {
		return err
	}
	rc := q.raftConfig(n.id, t)
	existing, err := raft.HasExistingState(n.logs, n.stable, n.snaps)
	if err != nil {
		return err
	}
	lk := q.sb.attach(n.addr)
	if !existing {
		if err := raft.BootstrapCluster(rc, n.logs, n.stable, n.snaps, lk, q.voters()); err != nil {
			q.sb.detach(n.addr)
			return err
		}
	}
	p := &proc{fsm: newFSM(), link: lk, timing: t, election: t.election, stopped: make(chan struct{})}
	r, err := raft.NewRaft(rc, p.fsm, n.logs, n.stable, n.snaps, lk)
	if err != nil {
		q.sb.detach(n.addr)
		return err
	}
	p.raft = r
	p.observer = raft.NewObserver(q.obs, false, func(o *raft.Observation) bool {
		_, ok := o.Data.(raft.LeaderObservation)
		return ok
	})
	r.RegisterObserver(p.observer)
	n.p = p
	return nil
}

// leaderLocked is the live controller in the leader state with the highest
// term, 0 for none. Callers hold q.mu.
func (q *Quorum) leaderLocked() int {
	best, term := 0, uint64(0)
	for _, n := range q.nodes {
		if n.p != nil && n.p.raft.State() == raft.Leader {
			if t := n.p.raft.CurrentTerm(); best == 0 || t > term {
				best, term = n.id, t
			}
		}
	}
	return best
}

// Leader is the active controller's id (the raft leader), 0 if none.
func (q *Quorum) Leader() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.leaderLocked()
}

// activeController returns the leader once it has applied every entry
// committed before its term (a barrier, once per term): only then is its
// image the whole committed metadata.
//
// It waits for one as long as the quorum can elect one (see canElect),
// however long raft takes: on a loaded machine, or in WASM's single
// thread, an election or a barrier can take seconds of real time, and a
// wall-clock limit then answered "no active controller" for a quorum that
// had a majority, which the simulation took for a lost majority (and
// TestNativeRestartKeepsTheMetadata for lost metadata). Only a quorum
// that cannot elect (too few controllers running, or cut off from each
// other) gives up, after wait; wait 0 never waits.
func (q *Quorum) activeController(wait time.Duration) (*proc, error) {
	start := time.Now()
	deadline := start.Add(wait)
	for {
		q.mu.Lock()
		if q.closed {
			q.mu.Unlock()
			return nil, ErrClosed
		}
		var p *proc
		if id := q.leaderLocked(); id != 0 {
			p = q.nodes[id-1].p
		}
		q.mu.Unlock()
		if p != nil {
			term := p.raft.CurrentTerm()
			if p.readyTerm.Load() == term {
				return p, nil
			}
			if err := p.wait(p.raft.Barrier(wait), "applying the log before the active controller's term"); err == nil {
				p.readyTerm.Store(term)
				return p, nil
			}
		}
		if wait == 0 || (!time.Now().Before(deadline) && !q.canElect()) {
			return nil, ErrNotController
		}
		if time.Since(start) > max(wait, hangBound) {
			return nil, fmt.Errorf("%w: a majority of controllers runs and reaches each other, but none became active within %s", ErrNotController, hangBound)
		}
		time.Sleep(time.Millisecond)
	}
}

// Close stops every controller and closes their stores. Native stores stay
// on disk: New on the same Dir continues from them.
func (q *Quorum) Close() error {
	q.life.Lock()
	defer q.life.Unlock()
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return nil
	}
	q.closed = true
	var procs []*proc
	var ids []int
	for _, n := range q.nodes {
		if n.p != nil {
			procs = append(procs, n.p)
			ids = append(ids, n.id)
			close(n.p.stopped)
			n.p = nil
			q.sb.detach(n.addr)
		}
	}
	q.mu.Unlock()

	errs := make([]error, len(procs))
	var wg sync.WaitGroup
	for i, p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = p.shutdown(ids[i])
		}()
	}
	wg.Wait()
	close(q.done)
	q.wg.Wait()
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, n := range q.nodes {
		if i := slices.Index(ids, n.id); i >= 0 && errors.Is(errs[i], errRaftHung) {
			continue // its raft may still write to them
		}
		errs = append(errs, q.closeStores(n))
	}
	return errors.Join(errs...)
}
