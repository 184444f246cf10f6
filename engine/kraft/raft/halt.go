package raft

import "fmt"

// A node whose store fails a write stops, as Kafka's does: the
// UncheckedIOException from FileQuorumStateStore (or the log's
// KafkaStorageException) leaves KafkaRaftClient.poll, and
// KafkaRaftClientDriver hands it to the fatal fault handler ("Unexpected
// error in raft IO thread"), which exits the process. Going on would be
// unsafe: a vote granted but not on disk can be granted again to another
// candidate after a restart, and a log entry acknowledged but not written
// can vanish from a majority. The other voters go on without it; the node
// comes back only when restarted, on whatever its store then holds.

// SetOnHalt names what to call once the node has halted: the owner's
// bookkeeping (the cluster marks the controller down). It runs as its own
// event, after the call that failed has returned.
func (n *Node) SetOnHalt(fn func(err error)) { n.onHalt = fn }

// Halted is the store failure that stopped the node, or nil.
func (n *Node) Halted() error { return n.halted }

// halt stops the node because its store failed a write: it sends
// nothing more, and its volatile state is gone, as after a crash.
func (n *Node) halt(err error) {
	if !n.up {
		return
	}
	n.errorText = err.Error()
	n.halted = err
	// err says what it wrote and names the file ("quorum-state: write
	// ctl1/quorum-state.tmp: no space left on device").
	n.events(fmt.Sprintf("%s: Unexpected error in raft IO thread: %v; the fault handler stops this node (in Kafka the process exits)", n.cfg.Node, err))
	n.Crash()
	if n.onHalt != nil {
		halted := n.halted
		n.sched.After(0, "kraft "+string(n.cfg.Node)+" halted", func() { n.onHalt(halted) })
	}
}
