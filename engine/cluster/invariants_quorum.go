package cluster

import (
	"fmt"

	"github.com/loglab/loglab/engine/kraft/raft"
)

// KRaft's safety, checked on the simulated quorum:
//
//   - at most one leader per epoch (the vote's majority rule);
//   - a committed metadata record is never lost or replaced: every voter
//     commits the same record at the same offset (onVoterCommit reports
//     a difference), and no voter's high watermark goes past its log.

// checkQuorum looks at every voter now.
func (k *Checker) checkQuorum() {
	for _, v := range k.c.voters {
		s := v.node.Status()
		if !s.Up {
			continue
		}
		if s.Role == raft.Leader {
			k.noteQuorumLeader(s.Epoch, v.id)
		}
		if s.HighWatermark > s.LogEnd && s.LogEnd >= s.LogStart && s.HighWatermark > s.LogStart {
			k.report("kraft-high-watermark", fmt.Sprintf("controller %d's high watermark %d is past its log end %d", v.id, s.HighWatermark, s.LogEnd))
		}
	}
}

// noteQuorumLeader records who led epoch, reporting a second leader.
func (k *Checker) noteQuorumLeader(epoch int32, id int) {
	if k.quorumLeaders == nil {
		k.quorumLeaders = map[int32]int{}
	}
	if prev, ok := k.quorumLeaders[epoch]; ok && prev != id {
		k.report("kraft-one-leader", fmt.Sprintf("controllers %d and %d both led epoch %d", prev, id, epoch))
		return
	}
	k.quorumLeaders[epoch] = id
}

// reportQuorum reports a committed metadata record that differs between
// voters.
func (k *Checker) reportQuorum(detail string) { k.report("kraft-committed", detail) }
