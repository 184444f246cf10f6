package server

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// clusterFiles is every file of the cluster in dataDir (what a rewind
// moves aside) with a hash of its bytes, in path order.
func clusterFiles(t *testing.T, dataDir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dataDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dataDir, path)
		if rel != "." && !strings.Contains(filepath.ToSlash(rel), "/") && !clusterEntry(d) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files = append(files, fmt.Sprintf("%s %x", rel, sha256.Sum256(b)))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// failRenames makes renameEntry fail from its nth call on (1 is the
// first) for the rest of the test, as a failing disk would; restore puts
// os.Rename back earlier.
func failRenames(t *testing.T, n int) (restore func()) {
	t.Helper()
	calls := 0
	renameEntry = func(from, to string) error {
		calls++
		if calls >= n {
			return &os.LinkError{Op: "rename", Old: from, New: to, Err: errors.New("injected failure")}
		}
		return os.Rename(from, to)
	}
	restore = func() { renameEntry = os.Rename }
	t.Cleanup(restore)
	return restore
}

// A stopped cluster with records on dir, and its files.
func stoppedCluster(t *testing.T) (dir string, files []string) {
	t.Helper()
	dir = t.TempDir()
	s := sessionOn(t, dir)
	s.run("produce orders key=k value=precious count=5")
	closeSession(s)
	files = clusterFiles(t, dir)
	if len(files) < 3 {
		t.Fatalf("the cluster has only %v", files)
	}
	return dir, files
}

// Moving the cluster's files aside stops wherever a rename fails (or the
// server dies). What is then still in the data directory is the
// cluster's, not a replay's: neither moveAside's own failure path nor a
// recovery at start-up may delete it. Nor may a recovery after a put-back
// that stopped halfway delete what it had put back.
func TestAMoveStoppedMidwayLosesNoFile(t *testing.T) {
	t.Run("moveAside fails at its second move", func(t *testing.T) {
		dir, files := stoppedCluster(t)
		failRenames(t, 2) // the first entry moves, the second does not, nor does anything after
		err := moveAside(dir)
		if err == nil {
			t.Fatal("moveAside with a failing rename succeeded")
		}
		renameEntry = os.Rename // the disk is fine again: a restart
		if _, err := recoverRewind(dir); err != nil {
			t.Fatalf("recovering: %v", err)
		}
		if got := clusterFiles(t, dir); !slices.Equal(got, files) {
			t.Errorf("after the failed move and a recovery the cluster's files are\n%v\nbefore\n%v", got, files)
		}
		if left, _ := leftAside(dir); len(left) > 0 {
			t.Errorf("%v left", left)
		}
	})
	t.Run("moveAside fails and moves back", func(t *testing.T) {
		dir, files := stoppedCluster(t)
		calls := 0
		renameEntry = func(from, to string) error {
			calls++
			if calls == 2 {
				return errors.New("injected failure")
			}
			return os.Rename(from, to)
		}
		t.Cleanup(func() { renameEntry = os.Rename })
		if err := moveAside(dir); err == nil || errors.Is(err, errNotPutBack) {
			t.Fatalf("moveAside with one failing rename: %v", err)
		}
		if got := clusterFiles(t, dir); !slices.Equal(got, files) {
			t.Errorf("after the failed move the cluster's files are\n%v\nbefore\n%v", got, files)
		}
	})
	t.Run("putBack stops halfway", func(t *testing.T) {
		dir, files := stoppedCluster(t)
		if err := moveAside(dir); err != nil {
			t.Fatal(err)
		}
		half := newLab(dir, nil) // a replay's files in the emptied directory
		if _, err := half.Run("cluster brokers=3 controllers=3 seed=42"); err != nil {
			t.Fatal(err)
		}
		half.Close()
		failRenames(t, 3) // the phase's rename and one entry back, then the disk fails
		if err := putBack(dir); err == nil {
			t.Fatal("putBack with a failing rename succeeded")
		}
		renameEntry = os.Rename
		if _, err := recoverRewind(dir); err != nil {
			t.Fatalf("recovering: %v", err)
		}
		if got := clusterFiles(t, dir); !slices.Equal(got, files) {
			t.Errorf("after the half put-back and a recovery the cluster's files are\n%v\nbefore\n%v", got, files)
		}
	})
}

// A rewind directory already in the data directory (an earlier rewind
// that could not finish) refuses the next rewind before it closes the
// cluster: nothing is touched, the cluster keeps running, and what is
// aside stays for the restart to sort out.
func TestARewindWithFilesLeftAsideIsRefused(t *testing.T) {
	for _, left := range []string{movingDir, asideDir, backDir} {
		t.Run(left, func(t *testing.T) {
			dir := t.TempDir()
			s := sessionOn(t, dir)
			s.run("produce orders key=k value=old count=1")
			stale := filepath.Join(dir, left, "stale-file")
			if err := os.MkdirAll(stale, 0o755); err != nil {
				t.Fatal(err)
			}
			s.run("produce orders key=k value=new count=5")
			before := stateNow(t, s)
			e := s.run("undo")
			if e.OK || !strings.Contains(e.Output, "an earlier rewind left a cluster's files in") || !strings.Contains(e.Output, "nothing changed") {
				t.Fatalf("undo with %s left: %+v", left, e)
			}
			after := stateNow(t, s)
			if after.view != before.view || !slices.Equal(after.files, before.files) {
				t.Errorf("the refused undo changed the cluster: files %v, before %v", after.files, before.files)
			}
			if _, err := os.Stat(stale); err != nil {
				t.Errorf("the directory left aside was touched: %v", err)
			}
			if e := s.run("produce orders key=k value=after"); !e.OK {
				t.Errorf("the cluster no longer runs: %+v", e)
			}
		})
	}
}

// A replay that ran but whose old files cannot be dropped (the rename
// that commits it fails) is a failed replay: the old files are put back
// and the cluster resumes from them, rather than leaving them aside for
// the next rewind to find.
func TestARewindThatCannotDropTheOldFilesPutsThemBack(t *testing.T) {
	s := freshSession(t, true, []string{"produce orders key=k value=kept count=4", "tick 1s"})
	before, _ := s.lab.Run("show log orders/0")
	renameEntry = func(from, to string) error {
		if filepath.Base(to) == asideDoneDir {
			return errors.New("injected failure")
		}
		return os.Rename(from, to)
	}
	t.Cleanup(func() { renameEntry = os.Rename })
	e := s.run("undo")
	if e.OK || !strings.Contains(e.Output, "its old files could not be dropped") || !strings.Contains(e.Output, "files were put back and it resumed from them") {
		t.Fatalf("undo whose drop fails: %+v", e)
	}
	if got, _ := s.lab.Run("show log orders/0"); got != before {
		t.Errorf("after the failed undo orders/0 holds\n%s\nbefore\n%s", got, before)
	}
	if left, _ := leftAside(s.dataDir); len(left) > 0 {
		t.Errorf("%v left in the data directory", left)
	}
	if e := s.run("produce orders key=k value=after"); !e.OK {
		t.Errorf("the cluster does not run after the failed undo: %+v", e)
	}
}

// A replay that fails and whose files cannot be put back leaves the
// session out of service: every command is refused saying so (none runs
// on the closed cluster), and a restart puts the files back and resumes
// the cluster with its records.
func TestARewindThatCannotPutTheFilesBackStopsTheSession(t *testing.T) {
	dir := t.TempDir()
	s := sessionOn(t, dir)
	s.run("produce orders key=k value=kept count=4")
	want, _ := s.lab.Run("show log orders/0")
	renameEntry = func(from, to string) error {
		if filepath.Base(to) == asideDoneDir || filepath.Base(filepath.Dir(from)) == backDir || filepath.Base(to) == backDir {
			return errors.New("injected failure")
		}
		return os.Rename(from, to)
	}
	t.Cleanup(func() { renameEntry = os.Rename })
	e := s.run("undo")
	if e.OK || !strings.Contains(e.Output, "out of service") {
		t.Fatalf("undo that cannot put back: %+v", e)
	}
	for _, line := range []string{"topic list", "produce orders key=k value=lost", "cluster brokers=1 seed=1", "undo"} {
		if e := s.run(line); e.OK || !strings.Contains(e.Output, "this cluster is out of service") {
			t.Errorf("%s after the failed put-back: %+v", line, e)
		}
	}
	if tl := s.timeline(); !strings.Contains(tl.Why, "out of service") {
		t.Errorf("the timeline: %+v", tl)
	}
	closeSession(s)

	renameEntry = os.Rename
	s2 := sessionOn(t, dir)
	if got, err := s2.lab.Run("show log orders/0"); err != nil || got != want {
		t.Errorf("after the restart orders/0 holds (%v)\n%s\nbefore\n%s", err, got, want)
	}
	if left, _ := leftAside(dir); len(left) > 0 {
		t.Errorf("%v left after the restart", left)
	}
}

// A rewind moves only what the cluster wrote (an allow-list): notes and
// folders someone keeps in the data directory, and a symbolic link even
// under a cluster's name, are neither moved nor deleted, and nothing a
// link points to outside the directory is touched.
func TestRewindMovesOnlyTheClustersEntries(t *testing.T) {
	dataDir, outside := t.TempDir(), t.TempDir()
	for _, d := range []string{"broker-1/orders-0", "controller-2/__cluster_metadata-0", "slides", "broker-x"} {
		if err := os.MkdirAll(filepath.Join(dataDir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{clusterFile, "workshop-notes.txt", "slides/1.pdf", "broker-1/orders-0/00000000000000000000.log"} {
		if err := os.WriteFile(filepath.Join(dataDir, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "precious"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dataDir, "broker-9")); err != nil {
		t.Fatal(err)
	}
	if err := moveAside(dataDir); err != nil {
		t.Fatal(err)
	}
	var left []string
	entries, _ := os.ReadDir(dataDir)
	for _, e := range entries {
		left = append(left, e.Name())
	}
	want := []string{asideDir, "broker-9", "broker-x", "slides", "workshop-notes.txt"}
	if !slices.Equal(left, want) {
		t.Fatalf("after moving aside the data directory holds %v, want %v", left, want)
	}
	// The replay writes its own cluster; putting back deletes only that.
	if err := os.MkdirAll(filepath.Join(dataDir, "broker-1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := putBack(dataDir); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"workshop-notes.txt", "slides/1.pdf", "broker-1/orders-0/00000000000000000000.log", clusterFile, "broker-9/precious"} {
		if _, err := os.Stat(filepath.Join(dataDir, f)); err != nil {
			t.Errorf("%s is gone after a rewind put the cluster back: %v", f, err)
		}
	}
}
