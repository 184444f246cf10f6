package server

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/kraft/quorum"
	"github.com/loglab/loglab/engine/lab"
	"github.com/loglab/loglab/engine/storage/osfs"
)

// clusterFile remembers, in the data directory, the `cluster` command that
// started the live cluster (its broker and controller counts, seed and
// settings), as a Kafka node keeps its server.properties beside its logs:
// a restarted server runs it again, and the cluster resumes from the
// partition logs and the controllers' metadata log on disk.
const clusterFile = "loglab-cluster.cmd"

// HoldsCluster reports whether dataDir holds a cluster a server resumes
// (its remembered `cluster` command), for the start-up line.
func HoldsCluster(dataDir string) bool {
	_, err := os.Stat(filepath.Join(dataDir, clusterFile))
	return err == nil
}

// openLab returns the live lab and the commands that bring it up: the
// starter script for a new data directory (or none), or the remembered
// `cluster` command for one that holds a cluster.
func openLab(dataDir string, logger *slog.Logger) (*lab.Lab, []string, error) {
	if dataDir == "" {
		return lab.New(), strings.Split(lab.StarterScript, "\n"), nil
	}
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return nil, nil, err
	}
	// A rewind cut short by a crash left the cluster's files aside
	// (rewind_aside.go): put them back before anything reads the
	// directory. The command log says the server restarted, so the
	// session resumes from these files as after any restart. Only here,
	// at start-up: on a live session a rewind directory is the live
	// rewind's, and recovering it would delete what it holds.
	if done, err := recoverRewind(dataDir); err != nil {
		return nil, nil, err
	} else if done != "" {
		logger.Warn(done, "dataDir", dataDir)
	}
	return openFiles(dataDir, logger)
}

// openFiles is openLab on a data directory with no rewind left aside: the
// lab and the commands that resume its cluster (or start one), or why the
// cluster's files cannot be resumed (metadatacheck.go).
func openFiles(dataDir string, logger *slog.Logger) (*lab.Lab, []string, error) {
	l := labOnDisk(dataDir)
	line, err := os.ReadFile(filepath.Join(dataDir, clusterFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if entries, _ := os.ReadDir(dataDir); len(withoutParticipants(entries)) > 0 {
			return nil, nil, fmt.Errorf("data directory %s holds files but no %s: give loglab's data directory or an empty one", dataDir, clusterFile)
		}
		return l, strings.Split(lab.StarterScript, "\n"), nil
	case err != nil:
		return nil, nil, err
	}
	if err := checkMetadataFiles(dataDir, logger); err != nil {
		return nil, nil, err
	}
	// The file is loglab's own, one line; anything else is damage. Running
	// it anyway would start nothing (an empty line) or something else, and
	// the server would then serve no cluster over a directory full of one.
	cmd := strings.TrimSpace(string(line))
	if words := strings.Fields(cmd); len(words) == 0 || words[0] != "cluster" || strings.Contains(cmd, "\n") {
		return nil, nil, fmt.Errorf("%s is damaged: it should hold the one `cluster` command that started this data directory's cluster "+
			"(such as `cluster brokers=3 controllers=3 seed=42`), but holds %q; write that command back into it, "+
			"or start loglab on an empty data directory", filepath.Join(dataDir, clusterFile), cmd)
	}
	return l, []string{cmd}, nil
}

// labOnDisk is a lab whose cluster keeps its files in dataDir: the
// brokers' partition logs (broker-N/) and the controllers' quorum-state,
// metadata log and snapshots (controller-N/). The lab's metadata
// directory is a path on its storage, which is rooted at dataDir.
func labOnDisk(dataDir string) *lab.Lab {
	return lab.NewWithStorage(osfs.New(dataDir), ".")
}

// rememberCluster records a `cluster` command that succeeded. An empty
// line succeeds too (it does nothing), so it has no first word.
func rememberCluster(dataDir, line string) error {
	if words := strings.Fields(line); dataDir == "" || len(words) == 0 || words[0] != "cluster" {
		return nil
	}
	return os.WriteFile(filepath.Join(dataDir, clusterFile), []byte(strings.TrimSpace(line)+"\n"), 0o644)
}

// remoteQuorum opens the quorum of controllers that run as separate
// processes, at their API addresses.
func remoteQuorum(apis []string) func(controllers int) (kraft.Quorum, error) {
	return func(controllers int) (kraft.Quorum, error) {
		if controllers != len(apis) {
			return nil, fmt.Errorf("controllers=%d, but the server was started with %d controller addresses (-controllers)", controllers, len(apis))
		}
		return quorum.NewRemote(quorum.RemoteConfig{APIs: apis})
	}
}

// storageAlarm finds, in a command's output, the events where a broker
// found damaged storage (engine/broker.IsStorageEvent) and the file and
// byte offset they name.
var segmentAt = regexp.MustCompile(`log (?:segment|file) (\S+?),? (?:at byte offset (\d+))?`)

// logStorageAlarms writes each storage alarm in a command's output to the
// server's log as a warning, as Kafka's LogLoader does, with the file's
// path in the data directory and the byte offset: an operator reads the
// server log, not every viewer's transcript. The live session calls it
// with every command's output (the start-up's `cluster` command is where
// a damaged data directory shows).
func logStorageAlarms(logger *slog.Logger, dataDir, output string) {
	for _, line := range strings.Split(output, "\n") {
		text := strings.TrimSpace(line)
		if !broker.IsStorageEvent(text) {
			continue
		}
		if _, rest, ok := strings.Cut(text, "] "); ok && strings.HasPrefix(text, "[") {
			text = rest // drop the virtual time
		}
		attrs := []any{"dataDir", dataDir}
		if m := segmentAt.FindStringSubmatch(text); m != nil {
			attrs = append(attrs, "file", filepath.Join(dataDir, filepath.FromSlash(m[1])))
			if m[2] != "" {
				attrs = append(attrs, "position", m[2])
			}
		}
		logger.Warn(text, attrs...)
	}
}

// withoutParticipants leaves out the participants' clusters, the
// instructor's token and the server's lock, which live in the
// instructor's data directory but are not its cluster's files.
func withoutParticipants(entries []os.DirEntry) []os.DirEntry {
	var out []os.DirEntry
	for _, e := range entries {
		if e.Name() != participantsDir && e.Name() != instructorTokenFile && e.Name() != lockFile {
			out = append(out, e)
		}
	}
	return out
}
