package quorum

import (
	"slices"
	"strconv"

	"github.com/hashicorp/raft"

	"github.com/loglab/loglab/engine/kraft"
)

// ActiveImage is a copy of the active controller's image, once it has
// applied everything committed before its term (waiting up to LeaderWait
// for an active controller); nil when there is none. It is the image a
// newly active controller resumes its decisions from.
func (q *Quorum) ActiveImage() *kraft.Image {
	p, err := q.activeController(q.cfg.LeaderWait)
	if err != nil {
		return nil
	}
	return p.fsm.imageClone()
}

// Image is a copy of controller id's metadata image, nil while it is down.
func (q *Quorum) Image(id int) *kraft.Image {
	n, err := q.node(id)
	if err != nil {
		return nil
	}
	q.mu.Lock()
	p := n.p
	q.mu.Unlock()
	if p == nil {
		return nil
	}
	return p.fsm.imageClone()
}

// NodeStatus is one controller as `show quorum` shows it.
type NodeStatus = kraft.ControllerStatus

// Status describes every controller, in id order.
func (q *Quorum) Status() []NodeStatus {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make([]NodeStatus, 0, len(q.nodes))
	for _, n := range q.nodes {
		s := NodeStatus{ID: n.id, Role: "shutdown", RestoredOffset: -1}
		if p := n.p; p != nil {
			r := p.raft
			s.Role = map[raft.RaftState]string{raft.Leader: "leader", raft.Follower: "follower", raft.Candidate: "candidate"}[r.State()]
			if s.Role == "" {
				s.Role = "shutdown"
			}
			if _, lid := r.LeaderWithID(); lid != "" {
				s.Leader, _ = strconv.Atoi(string(lid))
			}
			s.Term, s.LastIndex, s.CommitIndex, s.AppliedIndex = r.CurrentTerm(), r.LastIndex(), r.CommitIndex(), r.AppliedIndex()
			s.FirstIndex, _ = n.logs.FirstIndex()
			s.SnapshotIndex, _ = strconv.ParseUint(r.Stats()["last_snapshot_index"], 10, 64)
			if f := r.GetConfiguration(); f.Error() == nil {
				for _, srv := range f.Configuration().Servers {
					if srv.Suffrage == raft.Voter {
						v, _ := strconv.Atoi(string(srv.ID))
						s.Voters = append(s.Voters, v)
					}
				}
				slices.Sort(s.Voters)
			}
			st := p.fsm.stats()
			s.MetadataStart, s.MetadataEnd, s.Restores, s.RestoredOffset = st.start, st.next, st.restores, st.restored
			s.HeartbeatTimeout, s.ElectionTimeout = p.timing.heartbeat, p.timing.election
		}
		out = append(out, s)
	}
	return out
}
