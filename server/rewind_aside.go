package server

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// A rewind on a data directory replays the session on a fresh cluster
// rooted at the same directory (the lab keeps its partition logs and the
// controllers' raft files there, by those paths), so the old cluster's
// files cannot be built aside and renamed over. They are moved aside
// instead, into a hidden directory inside the data directory (one
// filesystem: each move is a rename), the replay runs on the emptied
// directory, and only once every line ran is the aside copy dropped. The
// drop is a rename first (asideDir to asideDoneDir), so a crash at any
// point leaves one of two states that openLab recognises at start-up:
//   - asideDir exists: the rewind had not finished; what is in the data
//     directory is a half-replayed cluster, and the aside copy is the
//     session's cluster. It is put back: nothing is lost.
//   - asideDoneDir exists: the rewind finished; the aside copy is only
//     deleted.
const (
	asideDir     = ".loglab-rewind"
	asideDoneDir = ".loglab-rewind-done"
)

// keptInPlace are the data directory's entries that are not its
// cluster's: a rewind leaves them where they are. The participants'
// clusters and the instructor's token live in the instructor's
// directory; a participant's record in theirs; the command log goes on
// across a rewind (it logs the rebuild).
func keptInPlace(name string) bool {
	switch name {
	case participantsDir, instructorTokenFile, participantFile, participantFile + ".tmp",
		commandLogFile, commandLogFile + ".1", asideDir, asideDoneDir:
		return true
	}
	return false
}

// moveAside moves the cluster's files in dataDir into asideDir.
func moveAside(dataDir string) error {
	aside := filepath.Join(dataDir, asideDir)
	if err := os.Mkdir(aside, 0o755); err != nil {
		return fmt.Errorf("making %s to keep the cluster's files while it replays: %w", aside, err)
	}
	entries, err := os.ReadDir(dataDir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if keptInPlace(e.Name()) {
			continue
		}
		if err := os.Rename(filepath.Join(dataDir, e.Name()), filepath.Join(aside, e.Name())); err != nil {
			// Put back what moved already: the caller reopens the cluster.
			if backErr := putBack(dataDir); backErr != nil {
				return errors.Join(err, backErr)
			}
			return err
		}
	}
	return nil
}

// putBack removes what a replay wrote into dataDir and moves the aside
// copy back in its place; there is nothing to do without one.
func putBack(dataDir string) error {
	aside := filepath.Join(dataDir, asideDir)
	saved, err := os.ReadDir(aside)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	entries, err := os.ReadDir(dataDir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if keptInPlace(e.Name()) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dataDir, e.Name())); err != nil {
			return fmt.Errorf("removing the half-replayed cluster's %s: %w", e.Name(), err)
		}
	}
	for _, e := range saved {
		if err := os.Rename(filepath.Join(aside, e.Name()), filepath.Join(dataDir, e.Name())); err != nil {
			return fmt.Errorf("putting the cluster's %s back from %s: %w", e.Name(), aside, err)
		}
	}
	return os.Remove(aside)
}

// dropAside deletes the aside copy once the replay succeeded.
func dropAside(dataDir string) error {
	done := filepath.Join(dataDir, asideDoneDir)
	if err := os.Rename(filepath.Join(dataDir, asideDir), done); err != nil {
		return err
	}
	return os.RemoveAll(done)
}

// recoverRewind finishes, at start-up, a rewind the server did not live
// to finish (see asideDir); it reports what it did ("" for nothing).
func recoverRewind(dataDir string) (string, error) {
	if err := os.RemoveAll(filepath.Join(dataDir, asideDoneDir)); err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(dataDir, asideDir)); errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err := putBack(dataDir); err != nil {
		return "", fmt.Errorf("a rewind was cut short (the server stopped while it replayed) and its cluster could not be put back from %s: %w",
			filepath.Join(dataDir, asideDir), err)
	}
	return "a rewind was cut short (the server stopped while it replayed): the cluster's files from before it were put back", nil
}
