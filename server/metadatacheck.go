package server

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/loglab/loglab/engine/kraft/raft"
	"github.com/loglab/loglab/engine/storage/osfs"
)

// A cluster resumed from a data directory trusts its controllers' files:
// KRaft keeps no checksum across quorum-state and the metadata log, so a
// controller whose log was truncated to nothing but whose quorum-state
// records an epoch starts all the same, in Kafka as here. When every
// controller's log is empty the quorum elects a leader over nothing: the
// cluster came up without its topics (or, if an election never settled,
// the start-up waited a minute and said "no controller was elected"),
// and nothing named the damaged files. loglab knows more than a Kafka
// node does (loglab-cluster.cmd says a cluster ran here, and the brokers'
// folders hold partitions of topics the metadata would not know), so it
// checks before the cluster starts and refuses, naming the files.

var (
	controllerDirPattern = regexp.MustCompile(`^controller-[0-9]+$`)
	brokerDirPattern     = regexp.MustCompile(`^broker-[0-9]+$`)
)

// metadataPartitionDir is where a controller keeps its metadata log and
// snapshots (engine/kraft/raft.FileStore).
const metadataPartitionDir = "__cluster_metadata-0"

// controllerOnDisk is what start-up can tell of one controller-N/
// without opening it.
type controllerOnDisk struct {
	name      string // controller-N
	epoch     int32  // the epoch quorum-state records
	stateErr  error  // quorum-state unreadable
	logs      []string
	hasRecord bool // a non-empty log segment or a snapshot
}

// checkMetadataFiles refuses to resume the cluster in dataDir when its
// controllers' files cannot be what it ran on: a quorum-state that does
// not read, or a metadata log emptied on every controller. The error
// names each file and says what to do; nothing is changed. A metadata
// log emptied on a minority of the controllers is logged: the majority
// holds the metadata and no leader can be elected without one of them,
// and Kafka starts such a quorum too. Emptied on a majority, it is
// refused like every controller's: they could elect one of their own. A data directory with no
// controller-N/ (its controllers run as separate processes) is not
// checked.
func checkMetadataFiles(dataDir string, logger *slog.Logger) error {
	controllers := readControllers(dataDir)
	if len(controllers) == 0 {
		return nil
	}
	var badState []string
	for _, c := range controllers {
		if c.stateErr != nil {
			badState = append(badState, "  "+stateError(dataDir, c))
		}
	}
	if len(badState) > 0 {
		return fmt.Errorf("the controllers' quorum-state is damaged in %s:\n%s\n"+
			"a controller cannot tell, without it, which epoch it is in or whom it voted for. Nothing was changed: "+
			"restore the file from a backup; or delete it, and that controller starts from its metadata log's last epoch with no vote "+
			"(safe unless it already voted in that epoch); or move %s aside and start loglab on an empty data directory",
			dataDir, strings.Join(badState, "\n"), dataDir)
	}
	var empty []controllerOnDisk
	for _, c := range controllers {
		if !c.hasRecord {
			empty = append(empty, c)
		}
	}
	if len(empty) == 0 {
		return nil
	}
	if len(empty) <= len(controllers)/2 {
		for _, c := range empty {
			logger.Warn("a controller's metadata log is empty while a majority's are not: it catches up from them",
				"dir", filepath.Join(dataDir, c.name, metadataPartitionDir), "quorumStateEpoch", c.epoch)
		}
		return nil
	}
	var lines []string
	for _, c := range empty {
		lines = append(lines, fmt.Sprintf("  %s (quorum-state records epoch %d)", describeEmptyLog(dataDir, c), c.epoch))
	}
	var msg string
	if len(empty) == len(controllers) {
		msg = fmt.Sprintf("the cluster's metadata is lost: %s says a cluster ran in %s, but every controller's metadata log is empty:\n%s\n",
			clusterFile, dataDir, strings.Join(lines, "\n"))
	} else {
		// A majority can elect one of its own without the others: a
		// leader over an empty log, whose followers truncate theirs to it.
		msg = fmt.Sprintf("the cluster's metadata would be erased: in %s, %d of the %d controllers' metadata logs are empty, a majority:\n%s\n"+
			"they could elect one of their own without the others, and the controllers that still hold the metadata would truncate theirs to its empty log\n",
			dataDir, len(empty), len(controllers), strings.Join(lines, "\n"))
	}
	if topics := partitionsOnDisk(dataDir); topics != "" {
		msg += "while the brokers' folders hold partitions of topics this metadata would not know: " + topics + "\n"
	}
	return fmt.Errorf("%s"+
		"Started, the controllers would elect a leader over an empty log and the cluster would come up without its topics "+
		"(a Kafka broker deletes the partitions the metadata does not know as stray logs). Nothing was changed: "+
		"restore the controller-N/ folders from a backup; or move %s aside and start loglab on an empty data directory "+
		"(`loglab dump-log` still reads the partition logs left aside)", msg, dataDir)
}

// readControllers lists dataDir's controller-N/ folders, by name.
func readControllers(dataDir string) []controllerOnDisk {
	entries, _ := os.ReadDir(dataDir)
	fs := osfs.New(dataDir)
	var out []controllerOnDisk
	for _, e := range entries {
		if !e.IsDir() || !controllerDirPattern.MatchString(e.Name()) {
			continue
		}
		c := controllerOnDisk{name: e.Name()}
		state, err := raft.ReadQuorumState(fs, e.Name())
		c.epoch, c.stateErr = state.LeaderEpoch, err
		files, _ := os.ReadDir(filepath.Join(dataDir, e.Name(), metadataPartitionDir))
		for _, f := range files {
			switch {
			case strings.HasSuffix(f.Name(), ".checkpoint"):
				c.hasRecord = true
			case strings.HasSuffix(f.Name(), ".log"):
				c.logs = append(c.logs, f.Name())
				if info, err := f.Info(); err == nil && info.Size() > 0 {
					c.hasRecord = true
				}
			}
		}
		out = append(out, c)
	}
	return out
}

// stateError is c's quorum-state error naming the file by its whole path
// ("/data/controller-1/quorum-state is not JSON: …").
func stateError(dataDir string, c controllerOnDisk) string {
	rel := c.name + "/quorum-state"
	path := filepath.Join(dataDir, c.name, "quorum-state")
	if text, ok := strings.CutPrefix(c.stateErr.Error(), "quorum-state: "+rel); ok {
		return path + text
	}
	return path + ": " + c.stateErr.Error()
}

// describeEmptyLog names an empty controller's metadata log: its
// segments of 0 bytes, or the folder that holds none.
func describeEmptyLog(dataDir string, c controllerOnDisk) string {
	dir := filepath.Join(dataDir, c.name, metadataPartitionDir)
	if len(c.logs) == 0 {
		return dir + ": no log segment"
	}
	var names []string
	for _, l := range c.logs {
		names = append(names, filepath.Join(dir, l))
	}
	return strings.Join(names, ", ") + ": 0 bytes"
}

// partitionsOnDisk summarises the partition folders under broker-N/ as
// "orders (3 partitions), t (1 partition)"; empty when there are none.
func partitionsOnDisk(dataDir string) string {
	brokers, _ := os.ReadDir(dataDir)
	parts := map[string]map[int]bool{}
	for _, b := range brokers {
		if !b.IsDir() || !brokerDirPattern.MatchString(b.Name()) {
			continue
		}
		dirs, _ := os.ReadDir(filepath.Join(dataDir, b.Name()))
		for _, d := range dirs {
			i := strings.LastIndexByte(d.Name(), '-')
			if !d.IsDir() || i <= 0 {
				continue
			}
			p, err := strconv.Atoi(d.Name()[i+1:])
			if err != nil {
				continue
			}
			topic := d.Name()[:i]
			if parts[topic] == nil {
				parts[topic] = map[int]bool{}
			}
			parts[topic][p] = true
		}
	}
	var topics []string
	for t := range parts {
		topics = append(topics, t)
	}
	slices.Sort(topics)
	var out []string
	for _, t := range topics {
		unit := "partitions"
		if len(parts[t]) == 1 {
			unit = "partition"
		}
		out = append(out, fmt.Sprintf("%s (%d %s)", t, len(parts[t]), unit))
	}
	return strings.Join(out, ", ")
}
