package cluster

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/loglab/loglab/engine/kraft/raft"
	"github.com/loglab/loglab/engine/sim"
)

// ClusterID is the cluster's id as kafka-storage.sh would format it (22
// characters of base64url), drawn from the seed alone so that it never
// shifts the cluster's other draws.
func (c *Cluster) ClusterID() string {
	r := sim.NewRand(c.config.Seed ^ 0x636c7573746572) // "cluster"
	var b [16]byte
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// QuorumDescription is what `kafka-metadata-quorum.sh describe --status`
// and `--replication` print, asked of the quorum's leader; ok is false
// when no controller leads (the tool then fails: nobody answers
// DescribeQuorum) or the controllers are separate processes.
func (c *Cluster) QuorumDescription(replication bool) (string, bool) {
	s, ok := c.quorumLeaderStatus()
	if !ok {
		return "", false
	}
	if replication {
		return describeReplication(s), true
	}
	return c.describeStatus(s), true
}

func (c *Cluster) describeStatus(s raft.Status) string {
	var self raft.ReplicaStatus
	minVoter := raft.ReplicaStatus{LogEndOffset: -2}
	var voters, observers []string
	for _, r := range s.Replicas {
		if r.ID == s.ID && r.Voter {
			self = r
		}
		if r.Voter {
			voters = append(voters, fmt.Sprintf(`{"id": %d}`, r.ID))
			if minVoter.LogEndOffset == -2 || r.LogEndOffset < minVoter.LogEndOffset {
				minVoter = r
			}
		} else {
			observers = append(observers, fmt.Sprintf(`{"id": %d}`, r.ID))
		}
	}
	lagMs := int64(-1)
	switch {
	case minVoter.ID == s.ID && minVoter.Voter:
		lagMs = 0
	case self.LastCaughtUp >= 0 && minVoter.LastCaughtUp >= 0:
		lagMs = (self.LastCaughtUp - minVoter.LastCaughtUp).Milliseconds()
	}
	maxLag := s.LogEnd - max(minVoter.LogEndOffset, 0)
	rows := [][2]string{
		{"ClusterId:", c.ClusterID()},
		{"LeaderId:", fmt.Sprint(s.LeaderID)},
		{"LeaderEpoch:", fmt.Sprint(s.Epoch)},
		{"HighWatermark:", fmt.Sprint(s.HighWatermark)},
		{"MaxFollowerLag:", fmt.Sprint(maxLag)},
		{"MaxFollowerLagTimeMs:", fmt.Sprint(lagMs)},
		{"CurrentVoters:", "[" + strings.Join(voters, ", ") + "]"},
		{"CurrentObservers:", "[" + strings.Join(observers, ", ") + "]"},
	}
	var b strings.Builder
	for i, r := range rows {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%-24s%s", r[0], r[1])
	}
	return b.String()
}

// describeReplication is the --replication table: the leader, then the
// other voters, then the observers; every cell padded to its column and
// followed by a tab, as ToolsUtils.prettyPrintTable prints it. Timestamps
// are virtual time in epoch milliseconds.
func describeReplication(s raft.Status) string {
	table := [][]string{{"NodeId", "LogEndOffset", "Lag", "LastFetchTimestamp", "LastCaughtUpTimestamp", "Status"}}
	ms := func(d time.Duration) string {
		if d < 0 {
			return "-1"
		}
		return fmt.Sprint(sim.Epoch.Add(d).UnixMilli())
	}
	for _, r := range sortedReplicas(s) {
		table = append(table, []string{fmt.Sprint(r.ID), fmt.Sprint(r.LogEndOffset), fmt.Sprint(s.LogEnd - max(r.LogEndOffset, 0)),
			ms(r.LastFetch), ms(r.LastCaughtUp), replicaRole(s, r)})
	}
	widths := make([]int, len(table[0]))
	for _, row := range table {
		for i, cell := range row {
			widths[i] = max(widths[i], len(cell))
		}
	}
	var b strings.Builder
	for i, row := range table {
		if i > 0 {
			b.WriteByte('\n')
		}
		for j, cell := range row {
			fmt.Fprintf(&b, "%-*s\t", widths[j], cell)
		}
	}
	return b.String()
}

// VoterStatuses are the controllers' KRaft states, in id order (nil when
// they are separate processes).
func (c *Cluster) VoterStatuses() []raft.Status {
	if c.remote != nil {
		return nil
	}
	out := make([]raft.Status, len(c.voters))
	for i, v := range c.voters {
		out[i] = v.node.Status()
		out[i].Up = c.controllerUp[i]
	}
	return out
}

// quorumLeaderStatus is the status of the controller leading the quorum
// (the one DescribeQuorum asks), ok false while none leads.
func (c *Cluster) quorumLeaderStatus() (raft.Status, bool) {
	for _, v := range c.voters {
		if v.node.Up() && v.node.Role() == raft.Leader {
			return v.node.Status(), true
		}
	}
	return raft.Status{}, false
}

// sortedReplicas orders a leader's replicas as --replication prints
// them: the leader, the other voters, the observers.
func sortedReplicas(s raft.Status) []raft.ReplicaStatus {
	rows := slices.Clone(s.Replicas)
	slices.SortStableFunc(rows, func(a, b raft.ReplicaStatus) int {
		rank := func(r raft.ReplicaStatus) int {
			switch {
			case r.Voter && r.ID == s.ID:
				return 0
			case r.Voter:
				return 1
			}
			return 2
		}
		return rank(a) - rank(b)
	})
	return rows
}

// replicaRole is a replica's Status column: Leader, Follower or Observer.
func replicaRole(s raft.Status, r raft.ReplicaStatus) string {
	switch {
	case !r.Voter:
		return "Observer"
	case r.ID == s.ID:
		return "Leader"
	}
	return "Follower"
}
