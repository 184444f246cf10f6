package cluster

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/kraft/raft"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
	"github.com/loglab/loglab/engine/storage"
)

// The controller quorum, simulated: each controller is a KRaft voter
// (engine/kraft/raft) at its own address on the simulated network (c1,
// c2, ...), replicating __cluster_metadata by Fetch as Kafka 4.x does.
// Elections, epochs and commits happen in virtual time, so the same seed
// and commands give the same quorum on every run. The voter whose leader
// epoch is ready runs kraft.Controller, the only code that decides.

// voter is one controller: its KRaft node and the metadata it replayed
// from what its log committed.
type voter struct {
	id    int
	c     *Cluster
	node  *raft.Node
	image *kraft.Image
}

func (v *voter) Commit(entries []protocol.MetadataEntry) {
	for _, e := range entries {
		v.image.Apply(e.Record)
	}
	v.c.onVoterCommit(v, entries)
}

func (v *voter) LoadSnapshot(snap raft.Snapshot) {
	v.image = kraft.ImageFromRecords(snap.Records, snap.ID.EndOffset-1)
}

func (v *voter) LeaderChange(leader, epoch int32) { v.c.onLeaderChange(v, int(leader), epoch) }

func (v *voter) SnapshotRecords() []protocol.MetadataRecord { return v.image.Records() }

// voterLog is the active controller's MetadataLog: appends go to its
// voter's log, uncommitted; they commit when a majority has them
// (Committed says how far).
type voterLog struct{ v *voter }

func (l voterLog) Append(records []protocol.MetadataRecord) ([]protocol.MetadataRecord, error) {
	return l.v.node.Append(records)
}

func (l voterLog) Read(from int64) []protocol.MetadataRecord { return l.v.c.meta.Read(from) }

func (l voterLog) End() int64 { return l.v.node.Log().EndOffset() }

// Committed is the high watermark: records below it are committed.
func (l voterLog) Committed() int64 { return l.v.node.HighWatermark() }

// quorumConfig is the KRaft configuration of controller or broker id.
func (c *Cluster) quorumConfig(id int32, addr sim.NodeID) raft.Config {
	voters := make([]int32, c.config.Controllers)
	for i := range voters {
		voters[i] = int32(i + 1)
	}
	cfg := raft.DefaultConfig(id, addr, voters, func(id int32) sim.NodeID { return controllerNode(int(id)) })
	if c.config.SnapshotThreshold > 0 {
		cfg.SnapshotEvery = int64(c.config.SnapshotThreshold)
	}
	if q := c.config.Quorum; q.ElectionTimeout > 0 {
		cfg.ElectionTimeout, cfg.FetchTimeout, cfg.ElectionBackoffMax = q.ElectionTimeout, q.FetchTimeout, q.ElectionBackoffMax
	}
	return cfg
}

// quorumRand is node's own seeded source: its election jitter never
// shifts the cluster's draws (replica placement), so adding the quorum
// changed no topic's layout.
func (c *Cluster) quorumRand(addr sim.NodeID) *rand.Rand {
	seed := c.config.Seed ^ 0x6b72616674 // "kraft"
	for _, ch := range addr {
		seed = seed*31 + uint64(ch)
	}
	return sim.NewRand(seed)
}

// startVoters creates the controllers and boots them. Until one is ready
// to lead, the active controller's address refuses connections.
func (c *Cluster) startVoters() error {
	c.net.SetDown(kraft.ControllerNode, true)
	for id := 1; id <= c.config.Controllers; id++ {
		v := &voter{id: id, c: c, image: kraft.NewImage()}
		if err := c.newVoterNode(v); err != nil {
			return err
		}
		c.net.Attach(controllerNode(id), func(env *sim.Envelope) { v.node.Handle(env) })
		c.voters = append(c.voters, v)
	}
	for _, v := range c.voters {
		if err := v.node.Start(); err != nil {
			return fmt.Errorf("controller %d: %w", v.id, err)
		}
	}
	return nil
}

// newVoterNode opens v's store and makes its KRaft node, not started.
func (c *Cluster) newVoterNode(v *voter) error {
	addr := controllerNode(v.id)
	store, err := c.voterStore(v.id)
	if err != nil {
		return err
	}
	v.node = raft.NewNode(c.quorumConfig(int32(v.id), addr), c.net, c.sched, c.quorumRand(addr), store, v, c.event)
	v.node.SetOnHalt(func(err error) { c.controllerHalted(v, err) })
	return nil
}

// voterStore is where controller id keeps its quorum-state, log and
// snapshots: files under MetadataDir, or the simulation's memory.
func (c *Cluster) voterStore(id int) (raft.Store, error) {
	if c.config.MetadataDir == "" || c.fs == nil {
		return raft.NewMemStore(), nil
	}
	// Its own view of the disk, so that the lab can fill one controller's
	// (faults_disk.go) and leave the brokers' alone.
	if id > len(c.controllerDisks) {
		c.controllerDisks = append(c.controllerDisks, storage.NewFaulty(c.fs))
	}
	disk := c.controllerDisks[id-1]
	return raft.OpenFileStore(disk, fmt.Sprintf("%s/controller-%d", c.config.MetadataDir, id))
}

// onLeaderChange follows the voters' leadership: a voter ready to lead
// its epoch becomes the active controller; the active one that lost its
// epoch stops deciding.
func (c *Cluster) onLeaderChange(v *voter, leader int, epoch int32) {
	switch {
	case leader == v.id:
		c.checker.NoteQuorumLeader(epoch, v.id)
		c.activateVoter(v, epoch)
	case v.id == c.activeID:
		c.deactivate()
	}
}

// activateVoter makes v the active controller, resuming from the metadata
// it replayed (Kafka's QuorumController claims leadership once its
// listener reached the epoch's start).
func (c *Cluster) activateVoter(v *voter, epoch int32) {
	if c.controller != nil {
		c.controller.Stop()
	}
	img := kraft.ImageFromRecords(v.image.Records(), v.image.Offset)
	c.controller = kraft.NewController(c.controllerConfig(), c.net, c.sched, c.rng, voterLog{v}, img, c.event)
	c.activeID = v.id
	c.placePartition() // ctl is where the active controller is
	c.net.Host(kraft.ControllerNode, controllerNode(v.id))
	if c.started {
		c.event(fmt.Sprintf("controller %d is the active controller now (leader epoch %d): it resumes from metadata offset %d, every broker's session starts afresh",
			v.id, epoch, img.Offset))
	}
}

// onVoterCommit keeps the cluster's copy of the committed metadata log
// (the first voter to commit an offset adds it) and checks KRaft's
// safety: every voter commits the same record at the same offset.
func (c *Cluster) onVoterCommit(v *voter, entries []protocol.MetadataEntry) {
	var fresh []protocol.MetadataRecord
	for _, e := range entries {
		off := e.Record.Offset
		if len(c.meta.recent) == 0 && len(fresh) == 0 && off > c.meta.first {
			c.meta.first = off // a restarted cluster: what its voters' snapshots hold comes before
		}
		switch {
		case off == c.meta.End()+int64(len(fresh)):
			fresh = append(fresh, e.Record)
			c.meta.epochs = append(c.meta.epochs, e.Epoch)
		case off < c.meta.End() && off >= c.meta.first && off-c.meta.first < int64(len(c.meta.recent)):
			if prev := c.meta.recent[off-c.meta.first]; prev.Describe() != e.Record.Describe() || c.meta.epochs[off-c.meta.first] != e.Epoch {
				c.checker.ReportQuorum(fmt.Sprintf("controller %d committed %q at metadata offset %d, where %q was committed before", v.id, e.Record.Describe(), off, prev.Describe()))
			}
		}
	}
	if len(fresh) > 0 {
		c.meta.commit(fresh)
	}
	if v.id == c.activeID && c.controller != nil {
		c.controller.Committed(v.node.HighWatermark())
	}
}

// voter returns controller id, or nil.
func (c *Cluster) voter(id int) *voter {
	if id < 1 || id > len(c.voters) {
		return nil
	}
	return c.voters[id-1]
}

// QuorumNodes are the controllers' KRaft nodes, in id order (nil when
// the controllers are separate processes).
func (c *Cluster) QuorumNodes() []*raft.Node {
	out := make([]*raft.Node, len(c.voters))
	for i, v := range c.voters {
		out[i] = v.node
	}
	return out
}

// ObserverStatus is broker id's KRaft observer (nil when it has none).
func (c *Cluster) observerOf(id int) *raft.Node {
	if b := c.Broker(id); b != nil {
		return b.MetadataObserver()
	}
	return nil
}

// closeVoters releases the controllers' stores (or the quorum of processes).
func (c *Cluster) closeVoters() error {
	if c.remote != nil {
		return c.remote.Close()
	}
	var errs []error
	for _, v := range c.voters {
		v.node.Crash()
		errs = append(errs, v.node.Close())
	}
	return errors.Join(errs...)
}
