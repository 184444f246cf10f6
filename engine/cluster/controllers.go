package cluster

import (
	"errors"
	"fmt"
	"time"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/kraft/quorum"
	"github.com/loglab/loglab/engine/protocol"
)

// The controller quorum: a hashicorp/raft quorum replicates the metadata
// log; its leader is the active controller and runs kraft.Controller, the
// only code that decides. The simulation waits for raft whenever it asks
// it something, so virtual time stands still during an election: in the
// simulation a controller failover is instantaneous, where Kafka's takes
// controller.quorum.fetch.timeout.ms (2 s) to notice plus an election.

// ErrNotController is Kafka's NOT_CONTROLLER: no controller is active.
var ErrNotController = errors.New("NOT_CONTROLLER")

// raftTimeout is the quorum's T (quorum.Config.HeartbeatTimeout): 100 ms,
// twice the 50 ms that was measured to fail over in ~106 ms in WASM on an
// idle machine,
// because the leader steps down when it misses a majority for T, and a
// loaded 2-core machine or a garbage collection in WASM's single thread
// pauses raft's goroutines for tens of milliseconds. A failover takes
// 2T-4T of real time.
const raftTimeout = 100 * time.Millisecond

// defaultSnapshotThreshold is how many raft entries pile up before every
// controller snapshots: small, so that a lesson sees one happen.
const defaultSnapshotThreshold = 32

// openQuorum starts the controllers and waits for the first election.
func openQuorum(cfg Config) (kraft.Quorum, error) {
	if cfg.OpenQuorum != nil {
		return cfg.OpenQuorum(cfg.Controllers)
	}
	threshold := cfg.SnapshotThreshold
	if threshold == 0 {
		threshold = defaultSnapshotThreshold
	}
	return quorum.New(quorum.Config{Controllers: cfg.Controllers, Dir: cfg.MetadataDir, HeartbeatTimeout: raftTimeout,
		SnapshotOnCommit: true, SnapshotThreshold: uint64(threshold), TrailingLogs: uint64(max(threshold/4, 1))})
}

// activate makes the raft leader the active controller, resuming from the
// image it replayed; without a majority of controllers running there is
// none, and the controller's address stops answering.
func (c *Cluster) activate() {
	if !c.quorumHasMajority() {
		c.deactivate()
		return
	}
	img := c.quorum.ActiveImage()
	leader := c.quorum.Leader()
	if img == nil || leader == 0 {
		c.deactivate()
		return
	}
	if c.controller != nil && !c.controller.Stopped() && leader == c.activeID {
		return
	}
	if c.controller != nil {
		c.controller.Stop()
	}
	c.controller = kraft.NewController(c.controllerConfig(), c.net, c.sched, c.rng, c.meta, img, c.event)
	c.activeID = leader
	c.placePartition() // ctl is where the active controller is
	if c.started {
		// Not the raft term: a machine hiccup can add elections, and the
		// transcript must not depend on them (show quorum has the terms).
		c.event(fmt.Sprintf("controller %d is the active controller now: it resumes from metadata offset %d, every broker's session starts afresh",
			leader, img.Offset))
	}
}

func (c *Cluster) deactivate() {
	if c.controller != nil && !c.controller.Stopped() {
		c.controller.Stop()
		why := fmt.Sprintf("%d of %d controllers run, a majority is %d", c.controllersUp(), c.config.Controllers, c.majority())
		if c.controllersUp() >= c.majority() {
			why = fmt.Sprintf("no %d of the %d controllers reach each other across the network partition", c.majority(), c.config.Controllers)
		}
		c.event("no active controller: " + why + "; brokers keep their last metadata, nothing is fenced, elected or changed in any ISR")
	}
	c.activeID = 0
	c.net.SetDown(kraft.ControllerNode, true)
}

func (c *Cluster) controllerConfig() kraft.ControllerConfig {
	return kraft.ControllerConfig{SessionTimeout: c.config.SessionTimeout,
		AutoLeaderRebalance: c.config.AutoLeaderRebalance, ImbalanceCheckInterval: c.config.ImbalanceCheckInterval}
}

func (c *Cluster) controllersUp() int {
	n := 0
	for _, up := range c.controllerUp {
		if up {
			n++
		}
	}
	return n
}

// quorumHasMajority says whether a majority of the controllers runs and
// reaches each other: only then can the quorum elect and commit.
func (c *Cluster) quorumHasMajority() bool {
	n := c.config.Controllers
	for mask := 1; mask < 1<<n; mask++ {
		var ids []int
		ok := true
		for id := 1; id <= n && ok; id++ {
			if mask&(1<<(id-1)) == 0 {
				continue
			}
			ok = c.controllerUp[id-1]
			for _, other := range ids {
				ok = ok && c.controllersConnected(id, other)
			}
			ids = append(ids, id)
		}
		if ok && len(ids) >= c.majority() {
			return true
		}
	}
	return false
}

// CrashController stops controller id. When it was the active controller,
// the quorum elects another (if a majority still runs), which takes over.
func (c *Cluster) CrashController(id int) error {
	if err := c.checkControllerID(id); err != nil {
		return err
	}
	if !c.controllerUp[id-1] {
		return fmt.Errorf("controller %d is already down", id)
	}
	if err := c.quorum.Crash(id); err != nil {
		return err
	}
	c.controllerUp[id-1] = false
	c.event(fmt.Sprintf("controller %d crashed", id))
	if id == c.activeID || !c.quorumHasMajority() {
		c.activate()
	}
	return nil
}

// RestartController starts controller id on its stores; it catches up
// from the active controller's log, or its snapshot if the log it missed
// was compacted. If it completes a majority, a controller becomes active.
func (c *Cluster) RestartController(id int) error {
	if err := c.checkControllerID(id); err != nil {
		return err
	}
	if c.controllerUp[id-1] {
		return fmt.Errorf("controller %d is running", id)
	}
	if err := c.quorum.Restart(id); err != nil {
		return err
	}
	c.controllerUp[id-1] = true
	c.event(fmt.Sprintf("controller %d restarted", id))
	if c.activeID == 0 {
		c.activate()
	}
	return nil
}

func (c *Cluster) checkControllerID(id int) error {
	if id < 1 || id > c.config.Controllers {
		return fmt.Errorf("no controller %d (controllers are 1-%d)", id, c.config.Controllers)
	}
	return nil
}

// FollowQuorum undoes an election raft held on its own since the
// simulation last asked. Raft keeps real time: on a machine too busy to
// run its heartbeats on time (a loaded CI runner, a browser tab doing
// other work, a garbage collection in WASM's single thread) the followers
// stop believing in the leader and elect another between two commands.
// That is the machine's hiccup, not an event of the simulated cluster,
// whose virtual time did not move, so the leadership goes back to the
// controller the simulation made active (raft's leadership transfer): who
// is active stays a function of the commands. Only the raft terms in
// `show quorum` tell it happened.
func (c *Cluster) FollowQuorum() {
	if c.activeID == 0 || !c.quorumHasMajority() {
		return
	}
	if leader := c.quorum.Leader(); leader != c.activeID {
		if err := c.quorum.TransferLeadership(c.activeID); err != nil {
			c.event(fmt.Sprintf("the quorum elected controller %d on its own (a busy machine) and did not hand the leadership back to controller %d: %v", leader, c.activeID, err))
			c.activate()
		}
	}
}

// QuorumDrifted says whether raft elected a leader on its own since the
// simulation last looked: another controller than the active one leads.
// A driver that shows the cluster between commands (the live server)
// checks it now and then, and draws the view again, which hands the
// leadership back (View calls FollowQuorum).
func (c *Cluster) QuorumDrifted() bool {
	return c.activeID != 0 && c.quorumHasMajority() && c.quorum.Leader() != c.activeID
}

// RaftHiccup makes the raft leader hand its leadership to another
// controller, as happens on its own when a busy machine delays the
// leader's heartbeats: for tests of what the drivers show then.
func (c *Cluster) RaftHiccup() error {
	q, ok := c.quorum.(interface{ StepDown() error })
	if !ok {
		return fmt.Errorf("this quorum cannot step down on demand")
	}
	return q.StepDown()
}

// ControllersDown lists the crashed controllers in id order.
func (c *Cluster) ControllersDown() []int {
	var out []int
	for i, up := range c.controllerUp {
		if !up {
			out = append(out, i+1)
		}
	}
	return out
}

// ActiveController is the active controller's id, 0 when there is none.
func (c *Cluster) ActiveController() int { return c.activeID }

// QuorumStatus describes every controller once the quorum has settled.
func (c *Cluster) QuorumStatus() []kraft.ControllerStatus {
	c.quorum.Settle()
	return c.quorum.Status()
}

// MetadataLog is the metadata log (__cluster_metadata).
func (c *Cluster) MetadataLog() interface {
	ReadLog(from int64) ([]protocol.MetadataRecord, int64, error)
	End() int64
} {
	return c.meta
}
