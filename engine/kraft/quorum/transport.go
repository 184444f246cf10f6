package quorum

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/hashicorp/raft"
)

// rpcTimeout bounds how long an RPC waits for a live controller to take and
// answer it (raft's InmemTransport default).
const rpcTimeout = 500 * time.Millisecond

// errDown is what an RPC to a crashed controller returns.
var errDown = errors.New("controller is down")

// errNotCampaigning is what a vote request fails with while another
// controller is the one meant to win an election (see Partition).
var errNotCampaigning = errors.New("vote request withheld: another controller campaigns")

// errReset is what a replication RPC held for a crashed controller returns
// once the controller is back.
var errReset = errors.New("connection reset: the controller restarted")

// switchboard is the network between the controllers of one process: every
// controller gets a raft.InmemTransport, connected to all the others, and a
// link in front of it that knows which controllers are up.
//
// Why the link exists: hashicorp/raft backs off exponentially after every
// failed AppendEntries (10 ms doubling up to ~10 s, replication.go), so a
// controller that was down for half a minute would wait up to ten seconds
// for its leader to try again after a restart; a lesson should not. So the
// link holds a replication RPC (AppendEntries, InstallSnapshot) addressed
// to a crashed controller until the controller is back, and then fails it
// (errReset, as a connection reset would): raft counts one failure, waits
// 10 ms and retries with a request built from its log as it is now, so a
// controller that missed compacted entries gets the snapshot. Vote and
// TimeoutNow RPCs fail at once, as a refused connection would. A held RPC
// is also released, with an error, when its sender crashes, so that raft
// can shut down.
type switchboard struct {
	mu    sync.Mutex
	nodes map[raft.ServerAddress]*endpoint
	// cut holds the links a network partition cuts, both directions
	// (see partition.go): an RPC over one is treated as one to a
	// crashed controller.
	cut map[[2]raft.ServerAddress]bool
	// campaigner, when set, is the only controller whose vote requests
	// get through (a leadership transfer's excepted): see Partition and
	// Crash. campaign counts the elections it was set for, so that a late
	// fallback ends only its own (see gateElection).
	campaigner raft.ServerAddress
	campaign   uint64
	// beforeVote, when set (tests), runs before a controller's vote or
	// pre-vote request is sent: it can hold one back, as a loaded machine
	// that wakes the controller late does.
	beforeVote func(from raft.ServerAddress)
	changed    chan struct{} // closed and replaced whenever a controller goes up or down, or a link is cut or healed
}

// endpoint is one incarnation of a controller's transport: a restart makes
// a new one, as a restarted process opens new sockets.
type endpoint struct {
	addr  raft.ServerAddress
	inmem *raft.InmemTransport
	up    bool
	gone  chan struct{} // closed when this incarnation crashes
}

func newSwitchboard() *switchboard {
	return &switchboard{nodes: map[raft.ServerAddress]*endpoint{}, changed: make(chan struct{})}
}

// setCut replaces the cut links and wakes the RPCs held for them.
func (sb *switchboard) setCut(cut map[[2]raft.ServerAddress]bool) {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	sb.cut = cut
	sb.broadcast()
}

// setCampaigner lets only addr ask for votes ("": everyone). It returns
// the election's number, for endCampaign.
func (sb *switchboard) setCampaigner(addr raft.ServerAddress) uint64 {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	sb.campaigner = addr
	sb.campaign++
	return sb.campaign
}

// endCampaign lets everyone ask for votes again, unless the campaigner was
// set again since election number n.
func (sb *switchboard) endCampaign(n uint64) {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if sb.campaign == n {
		sb.campaigner = ""
	}
}

// wonCampaign ends the election once its campaigner leads.
func (sb *switchboard) wonCampaign(leader raft.ServerAddress) {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if sb.campaigner != "" && sb.campaigner == leader {
		sb.campaigner = ""
	}
}

// voting runs the beforeVote hook, if any, for a vote request from addr.
func (sb *switchboard) voting(addr raft.ServerAddress) {
	sb.mu.Lock()
	hook := sb.beforeVote
	sb.mu.Unlock()
	if hook != nil {
		hook(addr)
	}
}

// isCampaigner says whether addr is the controller meant to win.
func (sb *switchboard) isCampaigner(addr raft.ServerAddress) bool {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	return sb.campaigner != "" && sb.campaigner == addr
}

// mayCampaign says whether addr's vote requests get through. A leadership
// transfer's always do: its target was chosen, not timed.
func (sb *switchboard) mayCampaign(addr raft.ServerAddress, transfer bool) error {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if sb.campaigner != "" && sb.campaigner != addr && !transfer {
		return fmt.Errorf("%s: %w", addr, errNotCampaigning)
	}
	return nil
}

// connected says whether no partition cuts a from b.
func (sb *switchboard) connected(a, b raft.ServerAddress) bool {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	return !sb.cut[[2]raft.ServerAddress{a, b}]
}

// broadcast wakes every RPC waiting for a controller. Callers hold mu.
func (sb *switchboard) broadcast() {
	close(sb.changed)
	sb.changed = make(chan struct{})
}

// attach starts a new incarnation of the controller at addr, connected both
// ways to every other controller's current transport.
func (sb *switchboard) attach(addr raft.ServerAddress) *link {
	_, inmem := raft.NewInmemTransportWithTimeout(addr, rpcTimeout)
	ep := &endpoint{addr: addr, inmem: inmem, up: true, gone: make(chan struct{})}
	sb.mu.Lock()
	defer sb.mu.Unlock()
	for other, o := range sb.nodes {
		if other == addr {
			continue
		}
		inmem.Connect(other, o.inmem)
		o.inmem.Connect(addr, inmem)
	}
	sb.nodes[addr] = ep
	sb.broadcast()
	return &link{sb: sb, ep: ep}
}

// detach marks the controller at addr as crashed: RPCs to it wait (or fail)
// from now on, and the RPCs it is waiting on itself give up.
func (sb *switchboard) detach(addr raft.ServerAddress) {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	ep := sb.nodes[addr]
	if ep == nil || !ep.up {
		return
	}
	ep.up = false
	close(ep.gone)
	for other, o := range sb.nodes {
		if other != addr {
			o.inmem.Disconnect(addr)
		}
	}
	sb.broadcast()
	go drain(ep)
}

// drain answers, with errDown, the RPCs that reached a crashed controller
// before the others stopped sending: its raft no longer reads them, and
// their senders would otherwise wait out InmemTransport's timeout (500 ms,
// 5 s for a snapshot), holding up their own shutdown.
func drain(ep *endpoint) {
	done := time.NewTimer(20 * rpcTimeout)
	defer done.Stop()
	for {
		select {
		case rpc := <-ep.inmem.Consumer():
			rpc.Respond(nil, errDown)
		case <-done.C:
			return
		}
	}
}

// link is a controller's raft.Transport: its InmemTransport, behind a check
// that the target is up.
type link struct {
	sb *switchboard
	ep *endpoint
}

var (
	_ raft.Transport   = (*link)(nil)
	_ raft.WithClose   = (*link)(nil)
	_ raft.WithPreVote = (*link)(nil)
)

// reach returns nil when target is up. Otherwise, with wait false, it fails
// at once; with wait true it waits until the target is back and then fails
// with errReset, or fails when this controller crashes first.
func (l *link) reach(target raft.ServerAddress, wait bool) error {
	waited := false
	for {
		l.sb.mu.Lock()
		ep := l.sb.nodes[target]
		up := ep != nil && ep.up && !l.sb.cut[[2]raft.ServerAddress{l.ep.addr, target}]
		changed := l.sb.changed
		l.sb.mu.Unlock()
		select {
		case <-l.ep.gone:
			return errDown
		default:
		}
		if up && waited {
			return fmt.Errorf("%s: %w", target, errReset)
		}
		if up {
			return nil
		}
		if !wait {
			return fmt.Errorf("%s: %w", target, errDown)
		}
		waited = true
		select {
		case <-changed:
		case <-l.ep.gone:
			return errDown
		}
	}
}

func (l *link) Consumer() <-chan raft.RPC             { return l.ep.inmem.Consumer() }
func (l *link) LocalAddr() raft.ServerAddress         { return l.ep.inmem.LocalAddr() }
func (l *link) SetHeartbeatHandler(cb func(raft.RPC)) { l.ep.inmem.SetHeartbeatHandler(cb) }

func (l *link) EncodePeer(id raft.ServerID, addr raft.ServerAddress) []byte {
	return l.ep.inmem.EncodePeer(id, addr)
}

func (l *link) DecodePeer(buf []byte) raft.ServerAddress { return l.ep.inmem.DecodePeer(buf) }

// AppendEntriesPipeline is not offered: a pipeline would bypass the link.
// Metadata is a trickle, so plain RPCs lose nothing measurable.
func (l *link) AppendEntriesPipeline(raft.ServerID, raft.ServerAddress) (raft.AppendPipeline, error) {
	return nil, raft.ErrPipelineReplicationNotSupported
}

func (l *link) AppendEntries(id raft.ServerID, target raft.ServerAddress, args *raft.AppendEntriesRequest, resp *raft.AppendEntriesResponse) error {
	if err := l.reach(target, true); err != nil {
		return err
	}
	return l.ep.inmem.AppendEntries(id, target, args, resp)
}

func (l *link) InstallSnapshot(id raft.ServerID, target raft.ServerAddress, args *raft.InstallSnapshotRequest, resp *raft.InstallSnapshotResponse, data io.Reader) error {
	if err := l.reach(target, true); err != nil {
		return err
	}
	return l.ep.inmem.InstallSnapshot(id, target, args, resp, data)
}

func (l *link) RequestVote(id raft.ServerID, target raft.ServerAddress, args *raft.RequestVoteRequest, resp *raft.RequestVoteResponse) error {
	l.sb.voting(l.ep.addr)
	if err := l.sb.mayCampaign(l.ep.addr, args.LeadershipTransfer); err != nil {
		return err
	}
	if err := l.reach(target, false); err != nil {
		return err
	}
	return l.ep.inmem.RequestVote(id, target, args, resp)
}

func (l *link) RequestPreVote(id raft.ServerID, target raft.ServerAddress, args *raft.RequestPreVoteRequest, resp *raft.RequestPreVoteResponse) error {
	l.sb.voting(l.ep.addr)
	if err := l.sb.mayCampaign(l.ep.addr, false); err != nil {
		return err
	}
	if err := l.reach(target, false); err != nil {
		return err
	}
	return l.ep.inmem.RequestPreVote(id, target, args, resp)
}

func (l *link) TimeoutNow(id raft.ServerID, target raft.ServerAddress, args *raft.TimeoutNowRequest, resp *raft.TimeoutNowResponse) error {
	if err := l.reach(target, false); err != nil {
		return err
	}
	return l.ep.inmem.TimeoutNow(id, target, args, resp)
}

// Close is called by raft when it shuts down.
func (l *link) Close() error { return l.ep.inmem.Close() }
