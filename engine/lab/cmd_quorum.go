package lab

import (
	"fmt"
	"strings"

	"github.com/loglab/loglab/engine/cluster"
	"github.com/loglab/loglab/engine/kraft"
)

var (
	controllerCrashCommand = controllerCommand("crash", "crashed",
		"kill a controller; if it was the active one, the quorum elects another, which resumes from the metadata it replayed",
		(*cluster.Cluster).CrashController)
	controllerRestartCommand = controllerCommand("restart", "restarted",
		"start a crashed controller again: it restores its latest snapshot and catches up from the active controller",
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
	return "no controller is active (no majority)"
}

var showQuorumCommand = &command{
	name:    "show quorum",
	usage:   "show quorum",
	summary: "the controller quorum (hashicorp/raft): each controller's role, term, log, commit and applied index, snapshot, timeouts",
	run: func(l *Lab, a *args) (string, error) {
		if err := l.noArgs(a); err != nil {
			return "", err
		}
		var lines []string
		var voters []int
		for _, s := range l.cluster.QuorumStatus() {
			lines = append(lines, describeController(s))
			if len(s.Voters) > 0 {
				voters = s.Voters
			}
		}
		lines = append(lines, fmt.Sprintf("voters %s; %s", joinInts(voters), l.activeSummary()))
		return strings.Join(lines, "\n"), nil
	},
}

func describeController(s kraft.ControllerStatus) string {
	if s.Role == "shutdown" {
		return fmt.Sprintf("controller %d: down", s.ID)
	}
	role := s.Role
	if s.Role != "leader" && s.Leader != 0 {
		role += fmt.Sprintf(" of %d", s.Leader)
	}
	snap := "no snapshot"
	if s.SnapshotIndex > 0 {
		snap = fmt.Sprintf("snapshot at index %d, log from index %d", s.SnapshotIndex, s.FirstIndex)
	}
	line := fmt.Sprintf("controller %d: %s, term %d, last index %d, commit %d, applied %d, %s; next metadata offset %d",
		s.ID, role, s.Term, s.LastIndex, s.CommitIndex, s.AppliedIndex, snap, s.MetadataEnd)
	if s.MetadataStart > 0 {
		line += fmt.Sprintf(" (it restored a snapshot: offsets below %d are only in its image)", s.MetadataStart)
	}
	return line + fmt.Sprintf("; timeouts heartbeat %v election %v", s.HeartbeatTimeout, s.ElectionTimeout)
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ",")
}
