package server

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/lab"
)

// The time bar's endpoints on a participant's cluster on a data
// directory: only its owner and the instructor read its timeline, go
// back or open a script; a cross-site request never does; a script with
// a bad line names it and changes nothing; the share script is what the
// browser lab replays.
func TestTimelineEndpoints(t *testing.T) {
	_, ts := newRolesServer(t, Options{InstructorToken: "teacher", DataDir: t.TempDir()})
	owner := openCluster(t, ts, "", "Ana")
	other := openCluster(t, ts, "", "Bo")
	base := ts.URL + "/api/v1/clusters/" + owner.ID
	for _, line := range []string{"produce orders key=k value=v", "produse typo", "tick 1s"} {
		command(t, ts, owner.ID, owner.Token, line)
	}

	// The bar is drawn for who may change the cluster, not for a viewer.
	for _, who := range []struct {
		token string
		bar   bool
	}{{owner.Token, true}, {"teacher", true}, {other.Token, false}} {
		req, _ := http.NewRequest(http.MethodGet, ts.URL+"/clusters/"+owner.ID, nil)
		req.Header.Set("Authorization", "Bearer "+who.token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if drawn := strings.Contains(string(page), `data-cluster-timeline="`+owner.ID+`"`); drawn != who.bar {
			t.Errorf("the time bar is drawn for %.8s…: %v, want %v", who.token, drawn, who.bar)
		}
	}

	// What a page reads after every change is small: where the session
	// is, not its commands, unless asked.
	var tl timelineState
	if status := call(t, http.MethodGet, base+"/timeline", owner.Token, nil, &tl); status != http.StatusOK || tl.Length != 5 || tl.At != 5 || tl.Why != "" || tl.Now != "tick 1s" || tl.Commands != nil {
		t.Fatalf("GET timeline: %d %+v", status, tl)
	}
	if status := call(t, http.MethodGet, base+"/timeline?commands=1", owner.Token, nil, &tl); status != http.StatusOK || len(tl.Commands) != 5 || tl.Commands[4] != "tick 1s" {
		t.Fatalf("GET timeline?commands=1: %d %+v", status, tl)
	}
	for _, who := range []struct{ name, token string }{{"another participant", other.Token}, {"nobody", ""}} {
		for _, req := range []struct {
			method, path string
			body         any
		}{
			{http.MethodGet, "/timeline", nil},
			{http.MethodPost, "/timeline", timelineRequest{Action: "undo"}},
			{http.MethodPut, "/commands.log", scriptRequest{Script: "cluster brokers=1 seed=1\n"}},
			{http.MethodGet, "/commands.log?for=lab", nil},
		} {
			var refused clusterError
			if status := call(t, req.method, base+req.path, who.token, req.body, &refused); status != http.StatusForbidden || refused.Error != "CLUSTER_AUTHORIZATION_FAILED" {
				t.Errorf("%s: %s %s: %d %+v, want 403", who.name, req.method, req.path, status, refused)
			}
		}
	}
	// A cross-site page cannot make its visitor's browser go back in time.
	req, _ := http.NewRequest(http.MethodPost, base+"/timeline", strings.NewReader(`{"action":"undo"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", "https://evil.example")
	req.Header.Set("Authorization", "Bearer "+owner.Token)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("a cross-origin undo: %v %v, want 403", resp.StatusCode, err)
	}

	var share string
	{
		req, _ := http.NewRequest(http.MethodGet, base+"/commands.log?for=lab", nil)
		req.Header.Set("Authorization", "Bearer "+owner.Token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		share = string(b)
	}
	wantShare := "# loglab session: open it with \"open script…\" in the browser lab\ncluster brokers=3 controllers=3 seed=42\ntopic create orders partitions=3 rf=3\nproduce orders key=k value=v\ntick 1s\n"
	if share != wantShare {
		t.Errorf("the share script (the typo left out, as the browser lab's history leaves it):\n%s\nwant\n%s", share, wantShare)
	}

	var moved timelineAnswer
	if status := call(t, http.MethodPost, base+"/timeline", owner.Token, timelineRequest{Action: "rewind", To: 3}, &moved); status != http.StatusOK || moved.Timeline.Length != 3 || !strings.Contains(moved.Message, "went back to command 3 of 5") {
		t.Fatalf("rewind 3: %d %+v", status, moved)
	}
	if status := call(t, http.MethodPost, base+"/timeline", owner.Token, timelineRequest{Action: "rewind", To: 9}, &moved); status != http.StatusConflict || !strings.Contains(moved.Error, "1 to 3") || moved.Timeline.Length != 3 {
		t.Errorf("rewind 9: %d %+v", status, moved)
	}
	if status := call(t, http.MethodPost, base+"/timeline", "teacher", timelineRequest{Action: "undo"}, &moved); status != http.StatusOK || moved.Timeline.Length != 2 {
		t.Errorf("the instructor's undo: %d %+v", status, moved)
	}

	bad := "cluster brokers=3 seed=5\ntopic create t partitions=1 rf=1\nconsumer poll nobody\n"
	if status := call(t, http.MethodPost, base+"/commands.log", owner.Token, scriptRequest{Script: bad}, &moved); status != http.StatusConflict || !strings.Contains(moved.Error, "line 3: consumer poll nobody") || moved.Timeline.Length != 2 {
		t.Errorf("a script with a bad line: %d %+v", status, moved)
	}
	good := "cluster brokers=3 seed=5\ntopic create t partitions=1 rf=1\nproduce t key=a value=b\n"
	if status := call(t, http.MethodPut, base+"/commands.log", owner.Token, scriptRequest{Script: good}, &moved); status != http.StatusOK || moved.Timeline.Length != 3 || moved.Timeline.Commands[0] != "cluster brokers=3 seed=5" {
		t.Errorf("a good script: %d %+v", status, moved)
	}
	for _, size := range []int{maxSessionScript + 1, 6*maxSessionScript + 2048} {
		var refused timelineAnswer
		status := call(t, http.MethodPost, base+"/commands.log", owner.Token, scriptRequest{Script: strings.Repeat("#", size)}, &refused)
		if (status != http.StatusConflict && status != http.StatusRequestEntityTooLarge) || !strings.Contains(refused.Error+refused.Message, "a session opens at most") {
			t.Errorf("a script of %d bytes: %d %+v", size, status, refused)
		}
	}
}

// The share script (and the bar's Download) costs a replay: it is kept
// until the log changes, so asking again replays nothing, and replays
// come out of the cluster's replay bucket (its lesson replays' too), so
// a loop asking after every change is refused past the burst.
func TestTheShareScriptIsReplayedOncePerChange(t *testing.T) {
	s, ts := newRolesServer(t, Options{InstructorToken: "teacher"})
	clock := freezeClock(s)
	n := countReplays(t)
	get := func() (int, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, ts.URL+"/api/v1/clusters/live/commands.log?for=lab", nil)
		req.Header.Set("Authorization", "Bearer teacher")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	status, first := get()
	for range 4 {
		if again, script := get(); again != status || script != first {
			t.Fatalf("asked again: %d %q, first %d %q", again, script, status, first)
		}
	}
	if status != http.StatusOK || *n != 1 {
		t.Fatalf("five GETs of an unchanged log: status %d, %d replays, want 200 and 1", status, *n)
	}
	for i := 1; i < lessonReplayBurst; i++ {
		s.live.run("tick 1ms")
		if status, script := get(); status != http.StatusOK || !strings.HasSuffix(script, strings.Repeat("tick 1ms\n", i)) {
			t.Fatalf("after change %d: %d %q", i, status, script)
		}
	}
	s.live.run("tick 1ms")
	if status, body := get(); status != http.StatusTooManyRequests || !strings.Contains(body, "at most 1 replay per second") {
		t.Errorf("past the burst: %d %s", status, body)
	}
	clock.advance(time.Second)
	if status, _ := get(); status != http.StatusOK {
		t.Errorf("a second later: %d", status)
	}
}

// On a data directory the time bar's move checks its replay in memory
// without the session's mutex (every page's commands wait on it only
// for the replay on disk), and the locked rewind does not check again.
func TestATimeBarMoveChecksItsReplayOutsideTheMutex(t *testing.T) {
	s, ts := newRolesServer(t, Options{InstructorToken: "teacher", DataDir: t.TempDir()})
	owner := openCluster(t, ts, "", "Ana")
	for _, line := range []string{"produce orders key=k value=v", "tick 1s"} {
		command(t, ts, owner.ID, owner.Token, line)
	}
	sess := s.clusters.get(owner.ID)
	checks, locked := 0, 0
	newReplayLab = func() *lab.Lab {
		checks++
		if !sess.mu.TryLock() {
			locked++
		} else {
			sess.mu.Unlock()
		}
		return lab.New()
	}
	t.Cleanup(func() { newReplayLab = lab.New })
	var moved timelineAnswer
	if status := call(t, http.MethodPost, ts.URL+"/api/v1/clusters/"+owner.ID+"/timeline", owner.Token, timelineRequest{Action: "undo"}, &moved); status != http.StatusOK || moved.Timeline.Length != 3 {
		t.Fatalf("undo: %d %+v", status, moved)
	}
	if checks != 1 || locked != 0 {
		t.Errorf("the undo checked its replay %d times, %d of them holding the session's mutex; want once, without", checks, locked)
	}
}
