package cluster

import (
	"time"

	"github.com/loglab/loglab/engine/view"
)

// metadataShown is how many recent metadata records a view carries.
const metadataShown = 30

// quorumView describes the controllers once the quorum has settled, so the
// picture is the same on every run of a script.
func (c *Cluster) quorumView() []view.Controller {
	var out []view.Controller
	for _, s := range c.QuorumStatus() {
		vc := view.Controller{ID: s.ID, Up: s.Role != "shutdown", Role: s.Role, Leader: s.Leader, Term: s.Term,
			LastIndex: s.LastIndex, CommitIndex: s.CommitIndex, AppliedIndex: s.AppliedIndex,
			SnapshotIndex: s.SnapshotIndex, MetadataEnd: s.MetadataEnd}
		if !vc.Up {
			vc.Role = "down"
		}
		for other := 1; other <= c.config.Controllers; other++ {
			if !c.controllersConnected(s.ID, other) {
				vc.CutFrom = append(vc.CutFrom, other)
			}
		}
		vc.Isolated = vc.Up && len(vc.CutFrom) > 0 && !c.quorumReaches(s.ID)
		out = append(out, vc)
	}
	return out
}

// recentMetadata is the tail of the metadata log this cluster committed.
func (c *Cluster) recentMetadata() []string {
	recs := c.meta.recent
	if len(recs) > metadataShown {
		recs = recs[len(recs)-metadataShown:]
	}
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.Describe()
	}
	return out
}

// quorumReplication is the leader's view of every replica, as the
// --replication table orders it; nil while no controller leads.
func (c *Cluster) quorumReplication() []view.QuorumReplica {
	s, ok := c.quorumLeaderStatus()
	if !ok {
		return nil
	}
	var out []view.QuorumReplica
	for _, r := range sortedReplicas(s) {
		out = append(out, view.QuorumReplica{ID: int(r.ID), Status: replicaRole(s, r), LogEndOffset: r.LogEndOffset,
			Lag: s.LogEnd - max(r.LogEndOffset, 0), LastFetch: virtualTime(r.LastFetch), LastCaughtUp: virtualTime(r.LastCaughtUp)})
	}
	return out
}

func virtualTime(d time.Duration) string {
	if d < 0 {
		return ""
	}
	return d.String()
}
