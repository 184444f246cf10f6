package lab

import (
	"fmt"
	"strings"

	"github.com/loglab/loglab/engine/cluster"
	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/kraft/raft"
)

var (
	controllerCrashCommand = controllerCommand("crash", "crashed",
		"kill a controller; if it led the quorum, the others notice within controller.quorum.fetch.timeout.ms and elect another, which resumes from the metadata it replayed",
		(*cluster.Cluster).CrashController)
	controllerRestartCommand = controllerCommand("restart", "restarted",
		"start a crashed controller again: it restores its latest snapshot and catches up by fetching from the leader",
		(*cluster.Cluster).RestartController)
)

// controllerCommand is `controller VERB ID`: do it, then say who is active.
func controllerCommand(verb, done, summary string, do func(c *cluster.Cluster, id int) error) *command {
	return &command{
		name:    "controller " + verb,
		usage:   "controller " + verb + " ID",
		summary: summary,
		run: func(l *Lab, a *args) (string, error) {
			id, err := l.controllerArg(a)
			if err != nil {
				return "", err
			}
			if err := do(l.cluster, id); err != nil {
				return "", err
			}
			return fmt.Sprintf("controller %d %s; %s", id, done, l.activeSummary()), nil
		},
	}
}

func (l *Lab) controllerArg(a *args) (int, error) {
	if err := l.requireCluster(); err != nil {
		return 0, err
	}
	id, err := idArg(a, "controller")
	if err != nil {
		return 0, err
	}
	return id, a.finish()
}

func (l *Lab) activeSummary() string {
	if id := l.cluster.ActiveController(); id != 0 {
		return fmt.Sprintf("controller %d is active", id)
	}
	if l.cluster.VoterStatuses() != nil {
		return "no controller is active until the quorum elects a leader"
	}
	return "no controller is active (no majority)"
}

var showQuorumCommand = &command{
	name:    "show quorum",
	usage:   "show quorum [replication]",
	summary: "the KRaft controller quorum as kafka-metadata-quorum.sh describe --status (or --replication) prints it, then each controller's state, epoch, log and high watermark",
	run: func(l *Lab, a *args) (string, error) {
		if err := l.requireCluster(); err != nil {
			return "", err
		}
		replication := false
		if len(a.positional) > 0 && a.positional[0] == "replication" {
			replication = true
			a.positional = a.positional[1:]
		}
		if err := a.finish(); err != nil {
			return "", err
		}
		c := l.cluster
		statuses := c.VoterStatuses()
		if statuses == nil {
			// Controllers that are separate processes (hashicorp/raft).
			var lines []string
			for _, s := range c.QuorumStatus() {
				lines = append(lines, describeController(s))
			}
			return strings.Join(append(lines, l.activeSummary()), "\n"), nil
		}
		var lines []string
		if out, ok := c.QuorumDescription(replication); ok {
			lines = append(lines, out)
		} else {
			lines = append(lines, "Error: no controller leads the quorum, so none answers DescribeQuorum")
		}
		if replication {
			return strings.Join(lines, "\n"), nil
		}
		for _, s := range statuses {
			lines = append(lines, describeVoter(s))
		}
		return strings.Join(append(lines, l.activeSummary()), "\n"), nil
	},
}

// describeVoter is one controller's KRaft state, in the lab's words.
func describeVoter(s raft.Status) string {
	if !s.Up {
		return fmt.Sprintf("controller %d: down", s.ID)
	}
	role := s.Role.String()
	if s.Role != raft.Leader && s.Role != raft.Resigned && s.LeaderID >= 0 {
		role += fmt.Sprintf(" of %d", s.LeaderID)
	}
	line := fmt.Sprintf("controller %d: %s, epoch %d", s.ID, role, s.Epoch)
	if s.VotedID >= 0 {
		line += fmt.Sprintf(" (voted for %d)", s.VotedID)
	}
	line += fmt.Sprintf(", log start offset %d, log end offset %d (last epoch %d), high watermark %d", s.LogStart, s.LogEnd, s.LastEpoch, s.HighWatermark)
	if s.SnapshotEnd >= 0 {
		line += fmt.Sprintf(", snapshot %020d-%010d.checkpoint", s.SnapshotEnd, s.SnapshotEpoch)
	}
	return line
}

// describeController is a controller of a quorum of processes
// (hashicorp/raft): its raft terms and indexes.
func describeController(s kraft.ControllerStatus) string {
	if s.Role == "shutdown" {
		return fmt.Sprintf("controller %d: down", s.ID)
	}
	role := s.Role
	if s.Role != "leader" && s.Leader != 0 {
		role += fmt.Sprintf(" of %d", s.Leader)
	}
	return fmt.Sprintf("controller %d: %s, term %d, last index %d, commit %d, applied %d; next metadata offset %d",
		s.ID, role, s.Term, s.LastIndex, s.CommitIndex, s.AppliedIndex, s.MetadataEnd)
}
