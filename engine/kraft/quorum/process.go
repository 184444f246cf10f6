//go:build !js

// A controller process listens on TCP; browsers cannot, so WASM runs the
// in-process quorum only.

package quorum

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/storage/osfs"
)

// ProcessConfig configures one controller of a quorum whose controllers
// run as separate OS processes (`loglab controller`).
type ProcessConfig struct {
	// Config holds the raft timeouts, snapshot and segment settings, as for
	// the in-process quorum. Dir is required: this controller's files go
	// under Dir/controller-ID, as in the in-process quorum's native mode, so
	// the processes of one machine may share a Dir. Controllers is taken
	// from Voters. LeaderWait is not used: a process never waits for an
	// election, its clients do (RemoteConfig.LeaderWait). SnapshotOnCommit
	// is not supported: it settles every controller at once, which needs
	// them all in one process.
	Config
	// ID is this controller's id, 1 to len(Voters).
	ID int
	// Voters are the raft addresses (host:port) of every controller,
	// Voters[i] being controller i+1's (see ParseVoters). This controller's
	// raft transport listens on Voters[ID-1].
	Voters []string
	// APIs are the HTTP API addresses, APIs[i] being controller i+1's;
	// missing or empty ones default to DefaultAPIAddr of its voter address.
	// This controller serves its API on APIs[ID-1]; the others are what a
	// follower names when it redirects an append to the active controller.
	APIs []string
	// Events receives a line whenever this controller's raft role or the
	// leader it knows changes; nil drops them.
	Events func(string)
}

// Process is one controller of a quorum whose controllers run as separate
// OS processes: hashicorp/raft over raft's TCP transport, the same state
// machine (fsm) and durable stores as the in-process quorum's native mode,
// and a small HTTP API (see api.go) through which Remote appends and reads.
//
// Inside, it is a Quorum of which only this controller runs here: that
// reuses the quorum's stores, raft configuration, status and active
// controller barrier unchanged. The other controllers' nodes only name
// their addresses, for the bootstrap configuration; they never start.
type Process struct {
	cfg  ProcessConfig
	q    *Quorum
	n    *node
	apis []string

	ln  net.Listener
	srv *http.Server

	obs chan raft.Observation
	// Owned by tune: the last leader this controller heard of (0 for
	// none yet), which its timeouts are planned for, and the leader it
	// last reported (0 after losing it).
	known, reported int

	once sync.Once
	err  error
}

// NewProcess starts controller cfg.ID: it opens its stores under cfg.Dir
// (bootstrapping them with the voter set when they are empty, as New does),
// starts raft on its voter address and serves the API. It does not wait
// for an election: the other controllers may not be running yet.
func NewProcess(cfg ProcessConfig) (*Process, error) {
	if cfg.Dir == "" {
		return nil, errors.New("quorum: a controller process needs a data directory (Dir)")
	}
	if cfg.SnapshotOnCommit {
		return nil, errors.New("quorum: SnapshotOnCommit needs every controller in one process")
	}
	if cfg.ID < 1 || cfg.ID > len(cfg.Voters) {
		return nil, fmt.Errorf("quorum: controller %d is not among the %d voters", cfg.ID, len(cfg.Voters))
	}
	for i, addr := range cfg.Voters {
		if err := checkHostPort(addr); err != nil {
			return nil, fmt.Errorf("quorum: controller %d's address: %v", i+1, err)
		}
	}
	cfg.Controllers = len(cfg.Voters)
	qc, err := cfg.Config.withDefaults()
	if err != nil {
		return nil, err
	}
	cfg.Config = qc
	apis := make([]string, len(cfg.Voters))
	for i := range apis {
		if i < len(cfg.APIs) && cfg.APIs[i] != "" {
			apis[i] = cfg.APIs[i]
		} else if apis[i], err = DefaultAPIAddr(cfg.Voters[i]); err != nil {
			return nil, fmt.Errorf("quorum: controller %d's API: %v", i+1, err)
		}
	}

	q := &Quorum{cfg: qc, fs: osfs.New(qc.Dir), sb: newSwitchboard(), done: make(chan struct{})}
	for i, addr := range cfg.Voters {
		q.nodes = append(q.nodes, &node{id: i + 1, addr: raft.ServerAddress(addr)})
	}
	p := &Process{cfg: cfg, q: q, n: q.nodes[cfg.ID-1], apis: apis, obs: make(chan raft.Observation, 64)}

	// The ports first: a taken one fails before anything touches the files.
	if p.ln, err = net.Listen("tcp", apis[cfg.ID-1]); err != nil {
		return nil, fmt.Errorf("quorum: controller %d's API: %w", cfg.ID, err)
	}
	q.mu.Lock()
	err = p.start()
	q.mu.Unlock()
	if err != nil {
		p.ln.Close()
		q.Close()
		return nil, fmt.Errorf("quorum: starting controller %d: %w", cfg.ID, err)
	}
	q.wg.Add(1)
	go p.tune()
	p.srv = &http.Server{Handler: p.handler(), ReadHeaderTimeout: 10 * time.Second}
	go p.srv.Serve(p.ln)
	return p, nil
}

// tcpTimeout bounds one raft RPC over TCP (an InstallSnapshot gets longer
// in proportion to its size; see raft's NetworkTransport).
const tcpTimeout = 5 * time.Second

// newTCPTransport is a controller's raft transport over TCP, without
// pipelined replication. hashicorp/raft's pipeline can deadlock (raft
// issue #612): when a follower's answer ends the pipeline's decoder (a
// newer term after a leadership transfer, or a refused append), the leader
// may send once more before it notices, and that send waits for ever on
// the decoder that is gone. The leader's replication goroutine then never
// ends, and neither does its raft's Shutdown: Close hung until the test
// timeout, on a loaded machine, after handing leadership over. With one
// RPC in flight raft replicates with plain AppendEntries calls, as the
// in-process quorum's link does; metadata is a trickle, so nothing
// measurable is lost.
func newTCPTransport(addr string, logger hclog.Logger) (*raft.NetworkTransport, error) {
	return raft.NewTCPTransportWithConfig(addr, nil, &raft.NetworkTransportConfig{
		Logger:          logger,
		MaxPool:         3,
		MaxRPCsInFlight: 1, // no pipelining
		Timeout:         tcpTimeout,
	})
}

// start runs raft on the stores, as Quorum.start does, but over TCP.
// Callers hold q.mu.
func (p *Process) start() error {
	q, n := p.q, p.n
	// The port before the files: a second process started by mistake for
	// the same controller stops here, before it opens the first one's log.
	trans, err := newTCPTransport(string(n.addr), q.cfg.Logger.Named("transport"))
	if err != nil {
		return err
	}
	if err := q.openStores(n); err != nil {
		trans.Close()
		return err
	}
	t := p.plan(0)
	rc := q.raftConfig(n.id, t)
	existing, err := raft.HasExistingState(n.logs, n.stable, n.snaps)
	if err != nil {
		trans.Close()
		return err
	}
	if !existing {
		if err := raft.BootstrapCluster(rc, n.logs, n.stable, n.snaps, trans, q.voters()); err != nil {
			trans.Close()
			return err
		}
	}
	pr := &proc{fsm: newFSM(), timing: t, election: t.election, stopped: make(chan struct{})}
	r, err := raft.NewRaft(rc, pr.fsm, n.logs, n.stable, n.snaps, trans)
	if err != nil {
		trans.Close()
		return err
	}
	pr.raft = r
	pr.observer = raft.NewObserver(p.obs, false, func(o *raft.Observation) bool {
		switch o.Data.(type) {
		case raft.LeaderObservation, raft.RaftState:
			return true
		}
		return false
	})
	r.RegisterObserver(pr.observer)
	n.p = pr
	return nil
}

// ID is this controller's id.
func (p *Process) ID() int { return p.cfg.ID }

// Addr is the address raft listens on.
func (p *Process) Addr() string { return string(p.n.addr) }

// API is the address the HTTP API listens on.
func (p *Process) API() string { return p.ln.Addr().String() }

// Status describes this controller as Quorum.Status does ("shutdown" after
// Close).
func (p *Process) Status() kraft.ControllerStatus { return p.q.Status()[p.cfg.ID-1] }

// proc is the running controller, nil after Close.
func (p *Process) proc() *proc {
	p.q.mu.Lock()
	defer p.q.mu.Unlock()
	return p.n.p
}

// Close stops the controller. When it is the active controller it first
// hands leadership to the most up-to-date follower (raft's
// LeadershipTransfer; KRaft's leader resigns with EndQuorumEpoch), so the
// quorum does not wait out an election timeout. Its files stay: NewProcess
// on the same Dir continues from them.
func (p *Process) Close() error {
	if pr := p.proc(); pr != nil && pr.raft.State() == raft.Leader {
		if err := pr.wait(pr.raft.LeadershipTransfer(), "handing the leadership over before closing"); err != nil {
			p.event("could not hand over leadership: %v", err)
		}
	}
	return p.halt()
}

// halt stops the controller at once, as a crash would: the others only
// notice that it stopped answering.
func (p *Process) halt() error {
	p.once.Do(func() {
		p.err = p.q.Close()
		p.srv.Close()
	})
	return p.err
}

func (p *Process) event(format string, args ...any) {
	if p.cfg.Events != nil {
		p.cfg.Events(fmt.Sprintf("controller %d: ", p.cfg.ID) + fmt.Sprintf(format, args...))
	}
}

// tune reports role and leader changes and keeps this controller's
// timeouts right for the leader it knows (see plan). It also looks every
// half heartbeat timeout, because a shorter timeout may only be set once
// the leader has been heard from (see retime).
func (p *Process) tune() {
	defer p.q.wg.Done()
	tick := time.NewTicker(p.q.cfg.HeartbeatTimeout / 2)
	defer tick.Stop()
	for {
		select {
		case o := <-p.obs:
			switch d := o.Data.(type) {
			case raft.RaftState:
				if d == raft.Candidate {
					// Its term goes up only if its pre-vote succeeds.
					p.event("candidate: asking for votes")
				} else {
					p.event("%s in term %d", roleName(d), o.Raft.CurrentTerm())
				}
			case raft.LeaderObservation:
				id, _ := strconv.Atoi(string(d.LeaderID))
				if id != p.reported {
					if id == 0 {
						p.event("lost the active controller")
					} else {
						p.event("controller %d is the active controller", id)
					}
					p.reported = id
				}
				if id != 0 {
					p.known = id
				}
			}
			p.retime()
		case <-tick.C:
			p.retime()
		case <-p.q.done:
			return
		}
	}
}

func roleName(s raft.RaftState) string {
	switch s {
	case raft.Leader:
		return "leader"
	case raft.Follower:
		return "follower"
	case raft.Candidate:
		return "candidate"
	}
	return "shutdown"
}
