package quorum

import "github.com/hashicorp/raft"

// hooks let a test tell what real time did from what it asked for. Raft
// runs on real time: on a loaded machine a leader whose heartbeats come
// late loses its lease and raft elects another on its own. A test that
// crashes "the leader" must know which controller led at that moment, and
// which leaders were elected after, to tell a disturbance from a bug.
type hooks struct {
	elected func(id int, term uint64) // a controller in term learned that controller id leads
	lost    func(id int)              // controller id no longer knows a leader
	fault   func(leader int)          // a Crash or Partition took effect while leader led (0: none)
}

func (q *Quorum) hookElected(id int, o *raft.Observation) {
	if h := q.cfg.hooks; h != nil && h.elected != nil {
		h.elected(id, o.Raft.CurrentTerm())
	}
}

func (q *Quorum) hookFault(leader int) {
	if h := q.cfg.hooks; h != nil && h.fault != nil {
		h.fault(leader)
	}
}

func (q *Quorum) hookLost(o *raft.Observation) {
	h := q.cfg.hooks
	if h == nil || h.lost == nil {
		return
	}
	q.mu.Lock()
	id := 0
	for _, n := range q.nodes {
		if n.p != nil && n.p.raft == o.Raft {
			id = n.id
		}
	}
	q.mu.Unlock()
	h.lost(id)
}
