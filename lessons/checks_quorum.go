package lessons

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/loglab/loglab/engine/kraft/raft"
)

// Checks for the lessons on the KRaft quorum itself (lessons 11 and 25):
// what each controller's KRaft state is (its role in QuorumState, its
// epoch, what its own log holds, committed or not), which epoch the
// quorum's leader leads, what the committed metadata log holds, and what
// the brokers' observers fetched. They read the controllers' raft nodes
// and the brokers' observers through the cluster's read-only accessors,
// never the transcript.
func init() {
	register("metadata-record", "metadata-record OFFSET: the type of the committed metadata record at OFFSET (`LeaderChange`, `RegisterBroker`, ...) as `show metadata` lists it (the lab keeps every committed record, even those the controllers' snapshots replaced), `none` if nothing is committed there yet, `snapshot` if only a snapshot holds it (controllers in other processes)", metadataRecord)
	register("quorum-epoch", "quorum-epoch: the leader epoch of the controller that leads the quorum (a running KRaft Leader), `none` while none leads", quorumEpoch)
	register("controller-role", "controller-role N: controller N's state in KRaft's QuorumState: `Leader`, `Follower`, `Candidate`, `Prospective`, `Unattached`, `Resigned`, or `down`", controllerRole)
	register("controller-epoch", "controller-epoch N: the epoch controller N is in (its quorum-state), `down` while it is crashed", controllerEpoch)
	register("controller-record", "controller-record N OFFSET: the type of the record at OFFSET in controller N's own copy of the metadata log, committed or not; `none` when its log does not hold OFFSET (past its end, or before its start: in a snapshot)", controllerRecord)
	register("observers", "observers: the ids `kafka-metadata-quorum describe --status` lists as CurrentObservers (the brokers that fetched from the leader), comma-separated; `none` while no controller leads", observers)
	register("observer-snapshot", "observer-snapshot B: the end offset of the metadata snapshot broker B's observer loaded from the leader (FetchSnapshot), `none` if it caught up by fetching records only", observerSnapshot)
}

// voterStatus is controller id's KRaft status.
func voterStatus(s State, arg string) (raft.Status, error) {
	if err := needCluster(s); err != nil {
		return raft.Status{}, err
	}
	statuses := s.Lab.Cluster().VoterStatuses()
	id, err := strconv.Atoi(arg)
	if err != nil || id < 1 || id > len(statuses) {
		return raft.Status{}, fmt.Errorf("no controller %s (controllers are 1-%d)", arg, len(statuses))
	}
	return statuses[id-1], nil
}

// quorumLeader is the status of the running controller that leads.
func quorumLeader(s State) (raft.Status, bool) {
	for _, st := range s.Lab.Cluster().VoterStatuses() {
		if st.Up && st.Role == raft.Leader {
			return st, true
		}
	}
	return raft.Status{}, false
}

func metadataRecord(s State, args []string) (string, error) {
	if len(args) != 1 {
		return "", fmt.Errorf("wants a metadata offset")
	}
	if err := needCluster(s); err != nil {
		return "", err
	}
	off, err := strconv.ParseInt(args[0], 10, 64)
	if err != nil || off < 0 {
		return "", fmt.Errorf("%q is not an offset", args[0])
	}
	recs, start, _ := s.Lab.Cluster().MetadataLog().ReadLog(off)
	if off < start {
		return "snapshot", nil
	}
	if len(recs) == 0 || recs[0].Offset != off {
		return "none", nil
	}
	return recs[0].Type, nil
}

func quorumEpoch(s State, args []string) (string, error) {
	if len(args) != 0 {
		return "", fmt.Errorf("takes no arguments")
	}
	if err := needCluster(s); err != nil {
		return "", err
	}
	if st, ok := quorumLeader(s); ok {
		return strconv.Itoa(int(st.Epoch)), nil
	}
	return "none", nil
}

func controllerRole(s State, args []string) (string, error) {
	if len(args) != 1 {
		return "", fmt.Errorf("wants a controller id")
	}
	st, err := voterStatus(s, args[0])
	if err != nil {
		return "", err
	}
	if !st.Up {
		return "down", nil
	}
	return st.Role.String(), nil
}

func controllerEpoch(s State, args []string) (string, error) {
	if len(args) != 1 {
		return "", fmt.Errorf("wants a controller id")
	}
	st, err := voterStatus(s, args[0])
	if err != nil {
		return "", err
	}
	if !st.Up {
		return "down", nil
	}
	return strconv.Itoa(int(st.Epoch)), nil
}

func controllerRecord(s State, args []string) (string, error) {
	if len(args) != 2 {
		return "", fmt.Errorf("wants a controller id and an offset")
	}
	if _, err := voterStatus(s, args[0]); err != nil {
		return "", err
	}
	off, err := strconv.ParseInt(args[1], 10, 64)
	if err != nil || off < 0 {
		return "", fmt.Errorf("%q is not an offset", args[1])
	}
	id, _ := strconv.Atoi(args[0])
	e, ok := s.Lab.Cluster().QuorumNodes()[id-1].Log().Entry(off)
	if !ok {
		return "none", nil
	}
	return e.Record.Type, nil
}

func observers(s State, args []string) (string, error) {
	if len(args) != 0 {
		return "", fmt.Errorf("takes no arguments")
	}
	if err := needCluster(s); err != nil {
		return "", err
	}
	st, ok := quorumLeader(s)
	if !ok {
		return "none", nil
	}
	var ids []string
	for _, r := range st.Replicas {
		if !r.Voter {
			ids = append(ids, strconv.Itoa(int(r.ID)))
		}
	}
	if len(ids) == 0 {
		return "none", nil
	}
	return strings.Join(ids, ","), nil
}

func observerSnapshot(s State, args []string) (string, error) {
	if len(args) != 1 {
		return "", fmt.Errorf("wants a broker id")
	}
	if err := needCluster(s); err != nil {
		return "", err
	}
	id, err := strconv.Atoi(args[0])
	if err != nil {
		return "", fmt.Errorf("%q is not a broker id", args[0])
	}
	b := s.Lab.Cluster().Broker(id)
	if b == nil {
		return "", fmt.Errorf("no broker %s", args[0])
	}
	o := b.MetadataObserver()
	if o == nil {
		return "", fmt.Errorf("broker %s has no observer of the metadata log (controllers in other processes push metadata)", args[0])
	}
	if st := o.Status(); st.SnapshotEnd >= 0 {
		return strconv.FormatInt(st.SnapshotEnd, 10), nil
	}
	return "none", nil
}
