package server

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/loglab/loglab/engine/cluster"
)

// A rewind on a data directory replays the session on a fresh cluster
// rooted at the same directory (the lab keeps its partition logs and the
// controllers' metadata logs there, by those paths), so the old cluster's
// files cannot be built aside and renamed over. They are moved aside
// instead, into a hidden directory inside the data directory (one
// filesystem: each move is a rename), the replay runs on the emptied
// directory, and only once every line ran is the aside copy dropped.
//
// The moves go one entry at a time, so a failure or a crash can stop
// them anywhere. Which hidden directory exists says what the files in the
// data directory are, and so what may be deleted (never the session's
// cluster); every step below is a rename or a deletion that can be run
// again after a crash:
//   - movingDir: the cluster's files are being moved aside. Those still in
//     the data directory are the cluster's, not a replay's: recovery moves
//     the moved ones back and deletes nothing.
//   - asideDir: every file of the cluster is aside (movingDir was renamed
//     once all moved), so what the data directory holds is the replay's.
//     Putting back deletes it first (deleting again after a crash deletes
//     only the rest), then renames asideDir to backDir.
//   - backDir: the replay's files are gone and the cluster's are moving
//     back: recovery moves the rest back and deletes nothing.
//   - asideDoneDir: the replay succeeded and the aside copy is only
//     deleted.
const (
	movingDir    = ".loglab-rewind-moving"
	asideDir     = ".loglab-rewind"
	backDir      = ".loglab-rewind-back"
	asideDoneDir = ".loglab-rewind-done"
)

// renameEntry is os.Rename, a variable so that a test can make a move
// fail midway, as a full or failing disk (or a crash) would.
var renameEntry = os.Rename

// clusterEntry says whether a data directory entry is one its cluster
// wrote: the brokers' logs (broker-N), the controllers' metadata logs
// (controller-N), the remembered `cluster` command and the acknowledged
// records' file. A rewind moves those and nothing else: an allow-list,
// so the server's lock, the participants' clusters, the instructor's
// token, the command log (it goes on across a rewind and logs the
// rebuild), the rewind directories, and whatever else someone keeps
// there (notes, slides) stay where they are. A symbolic link is never
// the cluster's, even under one of those names: a rename would move the
// link, but a deletion must not follow it out of the directory.
func clusterEntry(e fs.DirEntry) bool {
	if e.Type()&fs.ModeSymlink != 0 {
		return false
	}
	name := e.Name()
	switch name {
	case clusterFile, cluster.AckedFile:
		return !e.IsDir()
	}
	for _, prefix := range []string{"broker-", "controller-"} {
		if n, ok := strings.CutPrefix(name, prefix); ok && e.IsDir() && n != "" && strings.Trim(n, "0123456789") == "" {
			return true
		}
	}
	return false
}

// leftAside names the rewind directories in dataDir that hold a
// cluster's files (all but asideDoneDir, which holds only what may go),
// in the order of the phases.
func leftAside(dataDir string) ([]string, error) {
	var found []string
	for _, name := range []string{movingDir, asideDir, backDir} {
		_, err := os.Lstat(filepath.Join(dataDir, name))
		switch {
		case err == nil:
			found = append(found, name)
		case !errors.Is(err, fs.ErrNotExist):
			return nil, err
		}
	}
	return found, nil
}

// readyToMoveAside checks, before a rewind closes the cluster, that no
// earlier rewind left files aside: a new one would mix the two copies.
// A finished rewind's leftover copy (asideDoneDir) is deleted.
func readyToMoveAside(dataDir string) error {
	if err := os.RemoveAll(filepath.Join(dataDir, asideDoneDir)); err != nil {
		return fmt.Errorf("an earlier rewind's copy %s could not be removed: %w", asideDoneDir, err)
	}
	left, err := leftAside(dataDir)
	if err != nil {
		return err
	}
	if len(left) > 0 {
		return fmt.Errorf("an earlier rewind left a cluster's files in %s: restart the server, which puts them back, before travelling in time",
			filepath.Join(dataDir, left[0]))
	}
	return nil
}

// moveAside moves the cluster's files in dataDir into asideDir, through
// movingDir. On failure it moves back what it moved, deleting nothing;
// an error wrapping errNotPutBack says that failed too (leftAside then
// names where the rest is).
func moveAside(dataDir string) error {
	moving := filepath.Join(dataDir, movingDir)
	if err := os.Mkdir(moving, 0o755); err != nil {
		return fmt.Errorf("making %s to keep the cluster's files while it replays: %w", moving, err)
	}
	err := moveEntries(dataDir, moving)
	if err == nil {
		err = renameEntry(moving, filepath.Join(dataDir, asideDir))
	}
	if err != nil {
		if backErr := moveBack(dataDir, movingDir); backErr != nil {
			return errors.Join(err, backErr)
		}
		return err
	}
	return nil
}

// moveEntries renames the cluster's entries of dataDir into dir.
func moveEntries(dataDir, dir string) error {
	entries, err := os.ReadDir(dataDir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !clusterEntry(e) {
			continue
		}
		if err := renameEntry(filepath.Join(dataDir, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// errNotPutBack marks a failure to bring the cluster's files back into
// the data directory: they are then split between it and a rewind
// directory, and the cluster must not be opened from either.
var errNotPutBack = errors.New("the cluster's files could not be put back")

// moveBack moves every entry of dataDir's rewind directory name back into
// dataDir and removes it. It never deletes and never replaces: a name
// that exists in both places stops it (that cannot come from a rewind).
func moveBack(dataDir, name string) error {
	dir := filepath.Join(dataDir, name)
	saved, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w from %s: %w", errNotPutBack, dir, err)
	}
	for _, e := range saved {
		to := filepath.Join(dataDir, e.Name())
		if _, err := os.Lstat(to); !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w from %s: %s is in both (%v); nothing was deleted", errNotPutBack, dir, e.Name(), err)
		}
		if err := renameEntry(filepath.Join(dir, e.Name()), to); err != nil {
			return fmt.Errorf("%w from %s: %w", errNotPutBack, dir, err)
		}
	}
	if err := os.Remove(dir); err != nil {
		return fmt.Errorf("%w: %w", errNotPutBack, err)
	}
	return nil
}

// putBack undoes a replay once the cluster's files are all in asideDir:
// it deletes what the replay wrote into dataDir, then moves the aside
// copy back (through backDir, see the phases above). Run again after a
// crash, it finishes the job. There is nothing to do without asideDir
// or backDir.
func putBack(dataDir string) error {
	aside := filepath.Join(dataDir, asideDir)
	if _, err := os.Lstat(aside); err == nil {
		entries, err := os.ReadDir(dataDir)
		if err != nil {
			return fmt.Errorf("%w: %w", errNotPutBack, err)
		}
		for _, e := range entries {
			if !clusterEntry(e) {
				continue
			}
			if err := os.RemoveAll(filepath.Join(dataDir, e.Name())); err != nil {
				return fmt.Errorf("%w: removing the replayed cluster's %s: %w", errNotPutBack, e.Name(), err)
			}
		}
		if err := renameEntry(aside, filepath.Join(dataDir, backDir)); err != nil {
			return fmt.Errorf("%w: %w", errNotPutBack, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %w", errNotPutBack, err)
	}
	return moveBack(dataDir, backDir)
}

// dropAside deletes the aside copy once the replay succeeded. The rename
// is the point of no return: before it, a failure (or a crash) puts the
// aside copy back; after it, the replayed cluster stays and a failure to
// delete leaves only asideDoneDir, which the next rewind or start-up
// deletes.
func dropAside(dataDir string) (renamed bool, err error) {
	done := filepath.Join(dataDir, asideDoneDir)
	if err := renameEntry(filepath.Join(dataDir, asideDir), done); err != nil {
		return false, err
	}
	return true, os.RemoveAll(done)
}

// recoverRewind finishes, at start-up only, a rewind the server did not
// live to finish (see the phases above); it reports what it did ("" for
// nothing). More than one rewind directory is not a state a rewind
// leaves: it touches nothing and says so.
func recoverRewind(dataDir string) (string, error) {
	if err := os.RemoveAll(filepath.Join(dataDir, asideDoneDir)); err != nil {
		return "", err
	}
	left, err := leftAside(dataDir)
	switch {
	case err != nil:
		return "", err
	case len(left) == 0:
		return "", nil
	case len(left) > 1:
		return "", fmt.Errorf("the data directory %s holds %s: no rewind leaves more than one; nothing was touched, move the cluster's files back by hand",
			dataDir, strings.Join(left, " and "))
	}
	switch left[0] {
	case movingDir:
		err = moveBack(dataDir, movingDir)
	default:
		err = putBack(dataDir)
	}
	if err != nil {
		return "", fmt.Errorf("a rewind was cut short (the server stopped while it replayed) and its cluster could not be put back from %s: %w",
			filepath.Join(dataDir, left[0]), err)
	}
	return "a rewind was cut short (the server stopped while it replayed): the cluster's files from before it were put back", nil
}
