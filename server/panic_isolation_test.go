package server

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// A panic inside one participant's cluster (here forced as the issue's
// was: the controller quorum failing to save its term) is that cluster's
// command's error: the server goes on answering, and the instructor's
// and another participant's clusters run their commands.
func TestAPanicInOneClusterLeavesTheOthersRunning(t *testing.T) {
	s, ts := newRolesServer(t, Options{InstructorToken: "teacher"})
	a := openCluster(t, ts, "", "Ana")
	b := openCluster(t, ts, "", "Bo")
	s.clusters.get(a.ID).runLine = func(string) (string, error) {
		panic("failed to save current term: open quorum-state.tmp: too many open files")
	}
	status, got, _ := command(t, ts, a.ID, a.Token, "topic create t")
	if status != http.StatusOK || got.OK || !strings.Contains(got.Output, "internal error") || !strings.Contains(got.Output, "too many open files") {
		t.Fatalf("the panicking cluster's command: %d %+v", status, got)
	}
	for _, c := range []struct{ id, token string }{{b.ID, b.Token}, {"live", "teacher"}} {
		if status, got, _ := command(t, ts, c.id, c.token, "topic create after-the-panic"); status != http.StatusOK || !got.OK {
			t.Errorf("cluster %s after another's panic: %d %+v", c.id, status, got)
		}
	}
}

// The janitor removes idle clusters on its own goroutine, where nothing
// recovered a panic: one closing a cluster's engine ended the server. It
// is logged, that cluster is removed all the same, and the server and
// its other clusters go on.
func TestAPanicClosingAnIdleClusterLeavesTheServerUp(t *testing.T) {
	s, ts := newRolesServer(t, Options{InstructorToken: "teacher"})
	a := openCluster(t, ts, "", "Ana")
	sess := s.clusters.get(a.ID)
	sess.mu.Lock()
	closed := sess.lab
	sess.lab = nil // its Close panics: a nil pointer
	sess.mu.Unlock()
	defer closed.Close()

	removed := s.removeIdle(time.Now().Add(24 * time.Hour))
	if len(removed) != 1 || removed[0] != a.ID || s.clusters.get(a.ID) != nil {
		t.Fatalf("removed %v; the cluster is still registered: %v", removed, s.clusters.get(a.ID) != nil)
	}
	if status, got, _ := command(t, ts, "live", "teacher", "topic create after-the-panic"); status != http.StatusOK || !got.OK {
		t.Errorf("the instructor's cluster after the panic: %d %+v", status, got)
	}
}
