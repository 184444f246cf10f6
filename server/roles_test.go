package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/loglab/loglab/engine/lab"
)

// newRolesServer is a server whose handler takes credentials as sent (no
// instructorHandler), on dataDir ("" in memory).
func newRolesServer(t *testing.T, opts Options) (*Server, *httptest.Server) {
	t.Helper()
	opts.StaticDir = t.TempDir()
	opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() { ts.Close(); s.Close() })
	return s, ts
}

// call sends a JSON request with an optional Bearer token and decodes the
// JSON answer into out (when not nil); it returns the status.
func call(t *testing.T, method, url, token string, body any, out any) int {
	t.Helper()
	var r io.Reader
	if body != nil {
		data, _ := json.Marshal(body)
		r = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s %s: %d %s: %v", method, url, resp.StatusCode, data, err)
		}
	}
	return resp.StatusCode
}

// openCluster opens a participant cluster over the API, as a script does.
func openCluster(t *testing.T, ts *httptest.Server, token, name string) createClusterResponse {
	t.Helper()
	var got createClusterResponse
	if status := call(t, http.MethodPost, ts.URL+"/api/v1/clusters", token, createClusterRequest{Name: name}, &got); status != http.StatusCreated && status != http.StatusOK {
		t.Fatalf("opening a cluster: %d %+v", status, got)
	}
	return got
}

func command(t *testing.T, ts *httptest.Server, cluster, token, line string) (int, commandResponse, clusterError) {
	t.Helper()
	var raw json.RawMessage
	status := call(t, http.MethodPost, ts.URL+"/api/v1/clusters/"+cluster+"/commands", token, commandRequest{Line: line}, &raw)
	var ok commandResponse
	var refused clusterError
	json.Unmarshal(raw, &ok)
	json.Unmarshal(raw, &refused)
	return status, ok, refused
}

func TestOnlyTheInstructorDrivesTheInstructorsCluster(t *testing.T) {
	s, ts := newRolesServer(t, Options{InstructorToken: "teacher"})
	p := openCluster(t, ts, "", "Li Wei")

	for _, who := range []struct{ name, token string }{{"no credentials", ""}, {"a participant", p.Token}, {"a wrong token", "guess"}} {
		status, _, refused := command(t, ts, "live", who.token, "topic create sneaky")
		if status != http.StatusForbidden || refused.Error != "CLUSTER_AUTHORIZATION_FAILED" || !strings.Contains(refused.Message, "instructor") {
			t.Errorf("%s: got %d %+v, want 403 CLUSTER_AUTHORIZATION_FAILED naming the instructor", who.name, status, refused)
		}
	}
	if status, got, _ := command(t, ts, "live", "teacher", "topic create shown"); status != http.StatusOK || !got.OK {
		t.Fatalf("the instructor's command: %d %+v", status, got)
	}
	topics := s.live.summary().Topics
	if strings.Contains(strings.Join(topics, ","), "sneaky") || !strings.Contains(strings.Join(topics, ","), "shown") {
		t.Errorf("the instructor's cluster has topics %v: want shown and not sneaky", topics)
	}
	// The old endpoint is the instructor's cluster, under the same rule.
	if status := call(t, http.MethodPost, ts.URL+"/api/command", p.Token, commandRequest{Line: "topic create old"}, nil); status != http.StatusForbidden {
		t.Errorf("POST /api/command by a participant: %d, want 403", status)
	}
}

func TestAParticipantsClusterIsTheirsAndApart(t *testing.T) {
	s, ts := newRolesServer(t, Options{InstructorToken: "teacher"})
	a := openCluster(t, ts, "", "Ana")
	b := openCluster(t, ts, "", "Bo")
	if a.ID == b.ID || !participantIDPattern.MatchString(a.ID) || a.Token == "" || a.URL != "/clusters/"+a.ID {
		t.Fatalf("two participants' clusters: %+v %+v", a, b)
	}
	// Asking again gives the same cluster, not a second one.
	if again := openCluster(t, ts, a.Token, "Ana again"); again.ID != a.ID || again.Token != "" {
		t.Errorf("a participant asking twice got %+v, want their cluster %s and no new token", again, a.ID)
	}

	if status, got, _ := command(t, ts, a.ID, a.Token, "topic create ana-only"); status != http.StatusOK || !got.OK {
		t.Fatalf("the owner's command: %d %+v", status, got)
	}
	if status, _, refused := command(t, ts, a.ID, b.Token, "topic delete ana-only"); status != http.StatusForbidden || !strings.Contains(refused.Message, "another participant") {
		t.Errorf("another participant's command: %d %+v, want 403 saying it is another participant's", status, refused)
	}
	if status, got, _ := command(t, ts, a.ID, "teacher", "produce ana-only value=from-the-instructor"); status != http.StatusOK || !got.OK {
		t.Errorf("the instructor helping: %d %+v", status, got)
	}
	// Isolation: the topic is in Ana's cluster only.
	for _, sess := range []*liveSession{s.live, s.clusters.get(b.ID)} {
		if strings.Contains(strings.Join(sess.summary().Topics, ","), "ana-only") {
			t.Errorf("cluster %s has Ana's topic", sess.id)
		}
	}
	if status, _, refused := command(t, ts, "p-00000000", a.Token, "help"); status != http.StatusNotFound || refused.Error != "UNKNOWN_CLUSTER" {
		t.Errorf("an unknown cluster: %d %+v", status, refused)
	}

	var list []clusterSummary
	call(t, http.MethodGet, ts.URL+"/api/v1/clusters", "teacher", nil, &list)
	if len(list) != 3 || list[0].ID != "live" || list[0].Owner != "instructor" || list[1].ID != a.ID || list[1].Owner != "Ana" || list[2].Owner != "Bo" {
		t.Fatalf("GET /api/v1/clusters: %+v", list)
	}
	if list[1].LastCommand != "produce ana-only value=from-the-instructor" || !strings.Contains(strings.Join(list[1].Topics, ","), "ana-only") {
		t.Errorf("Ana's cluster listed as %+v: want its topic and last command", list[1])
	}
	// A participant sees whose clusters there are, not what they typed.
	call(t, http.MethodGet, ts.URL+"/api/v1/clusters", b.Token, nil, &list)
	if len(list) != 3 || list[1].Owner != "Ana" || list[1].LastCommand != "" || !list[1].LastActive.IsZero() {
		t.Errorf("GET /api/v1/clusters for a participant: %+v", list)
	}

	// Removing: not by another participant, not the instructor's cluster;
	// by its owner, files and all.
	if status := call(t, http.MethodDelete, ts.URL+"/api/v1/clusters/"+a.ID, b.Token, nil, nil); status != http.StatusForbidden {
		t.Errorf("another participant removing Ana's cluster: %d", status)
	}
	if status := call(t, http.MethodDelete, ts.URL+"/api/v1/clusters/live", "teacher", nil, nil); status != http.StatusBadRequest {
		t.Errorf("removing the instructor's cluster: %d", status)
	}
	ana := s.clusters.get(a.ID)
	if status := call(t, http.MethodDelete, ts.URL+"/api/v1/clusters/"+a.ID, a.Token, nil, nil); status != http.StatusNoContent || s.clusters.get(a.ID) != nil {
		t.Fatalf("Ana removing her cluster: %d", status)
	}
	// A command that reached it as it went runs nothing.
	if e := ana.runFrom(nil, "topic create too-late"); e.OK || !strings.Contains(e.Output, "this cluster is closed") {
		t.Errorf("a command on a removed cluster: %+v", e)
	}
}

// A participant token costs nothing to make, so one address opens at most
// MaxClustersPerAddress clusters; a browser's answer leaves the token in
// its HttpOnly cookie, out of the page's scripts' reach.
func TestOneAddressCannotTakeEveryPlace(t *testing.T) {
	_, ts := newRolesServer(t, Options{MaxClustersPerAddress: 1})
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/api/v1/clusters", strings.NewReader(`{"name":"from a page"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var got createClusterResponse
	json.NewDecoder(resp.Body).Decode(&got)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || got.Token != "" || len(resp.Cookies()) != 1 || resp.Cookies()[0].Name != participantCookie {
		t.Errorf("a page opening a cluster: %d %+v cookies %v: want the token in the cookie only", resp.StatusCode, got, resp.Cookies())
	}
	var refused clusterError
	if status := call(t, http.MethodPost, ts.URL+"/api/v1/clusters", "", createClusterRequest{Name: "a second identity"}, &refused); status != http.StatusTooManyRequests || refused.Error != "CLUSTER_LIMIT_REACHED" {
		t.Errorf("a second cluster from the same address: %d %+v", status, refused)
	}
}

func TestParticipantClustersAreBounded(t *testing.T) {
	_, ts := newRolesServer(t, Options{MaxParticipants: 1})
	openCluster(t, ts, "", "first")
	var refused clusterError
	if status := call(t, http.MethodPost, ts.URL+"/api/v1/clusters", "", createClusterRequest{Name: "second"}, &refused); status != http.StatusServiceUnavailable || refused.Error != "CLUSTER_LIMIT_REACHED" {
		t.Errorf("a cluster beyond the limit: %d %+v", status, refused)
	}
	if status := call(t, http.MethodPost, ts.URL+"/api/v1/clusters", "", createClusterRequest{Name: strings.Repeat("x", 41)}, &refused); status != http.StatusBadRequest || refused.Error != "INVALID_REQUEST" {
		t.Errorf("a 41-character name: %d %+v", status, refused)
	}
}

// A page's websocket carries its cookies: a participant's page watching the
// instructor's cluster has its command refused, told to it alone.
func TestAWatchingPageIsToldItsCommandWasRefused(t *testing.T) {
	_, ts := newRolesServer(t, Options{InstructorToken: "teacher"})
	p := openCluster(t, ts, "", "Ana")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	dialAs := func(cookie string) *websocket.Conn {
		h := http.Header{}
		h.Set("Cookie", cookie)
		c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+"/ws?cluster=live", &websocket.DialOptions{HTTPHeader: h})
		if err != nil {
			t.Fatal(err)
		}
		c.SetReadLimit(8 << 20)
		t.Cleanup(func() { c.CloseNow() })
		return c
	}
	participant := dialAs(participantCookie + "=" + p.Token)
	instructor := dialAs(instructorCookie + "=teacher")
	send := func(c *websocket.Conn, line string) {
		data, _ := json.Marshal(commandRequest{Type: "command", Line: line})
		if err := c.Write(ctx, websocket.MessageText, data); err != nil {
			t.Fatal(err)
		}
	}
	next := func(c *websocket.Conn) update {
		for {
			_, data, err := c.Read(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var u update
			json.Unmarshal(data, &u)
			if u.Type == "update" && u.Entry != "" {
				return u
			}
		}
	}
	send(participant, "topic create sneaky")
	if u := next(participant); !strings.Contains(u.Entry, "CLUSTER_AUTHORIZATION_FAILED") || !strings.Contains(u.Entry, "topic create sneaky") {
		t.Fatalf("the participant's page got %q, want its command refused", u.Entry)
	}
	send(instructor, "topic create shown")
	// The instructor's page never heard of the refused command: its next
	// entry is its own command, and the participant's page sees it too.
	if u := next(instructor); !strings.Contains(u.Entry, "topic create shown") || strings.Contains(u.Entry, "sneaky") {
		t.Errorf("the instructor's page got %q", u.Entry)
	}
	if u := next(participant); !strings.Contains(u.Entry, "created topic shown") {
		t.Errorf("the participant's page got %q, want the instructor's command", u.Entry)
	}
}

func TestTheInstructorsURLLeavesACookieAndDropsTheToken(t *testing.T) {
	_, ts := newRolesServer(t, Options{InstructorToken: "teacher"})
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(ts.URL + "/live?token=teacher")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == instructorCookie {
			cookie = c
		}
	}
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/live" || cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteLaxMode {
		t.Fatalf("/live?token=: %d Location=%q cookie=%+v", resp.StatusCode, resp.Header.Get("Location"), cookie)
	}
	if resp, _ := client.Get(ts.URL + "/live?token=wrong"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a wrong token: %d, want 403", resp.StatusCode)
	}
	// The overview is the instructor's.
	get := func(cookie string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, ts.URL+"/instructor", nil)
		if cookie != "" {
			req.Header.Set("Cookie", cookie)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	// A participant opening it reads a page saying whose it is, in both
	// languages, not an error's JSON.
	if status, body := get(""); status != http.StatusForbidden || !strings.Contains(body, "<html") || !strings.Contains(body, "instructor&#39;s") && !strings.Contains(body, "instructor's") || !strings.Contains(body, "只属于讲师") {
		t.Errorf("/instructor without the token: %d\n%s", status, body)
	}
	p := openCluster(t, ts, "", "Ana")
	command(t, ts, p.ID, p.Token, "topic create ana-topic")
	status, body := get(instructorCookie + "=teacher")
	if status != http.StatusOK || !strings.Contains(body, `data-cluster="`+p.ID+`"`) || !strings.Contains(body, "Ana") || !strings.Contains(body, "topic create ana-topic") {
		t.Errorf("/instructor for the instructor: %d, want Ana's cluster with her last command", status)
	}
}

func TestParticipantClustersComeBackAfterARestartAndGoWhenIdle(t *testing.T) {
	dir := t.TempDir()
	s, ts := newRolesServer(t, Options{DataDir: dir, InstructorToken: "teacher"})
	p := openCluster(t, ts, "", "Ana")
	if status, got, _ := command(t, ts, p.ID, p.Token, "produce orders key=k value=kept partition=0"); status != http.StatusOK || !got.OK {
		t.Fatalf("produce: %d %+v", status, got)
	}
	clusterDir := filepath.Join(dir, participantsDir, p.ID)
	if _, err := os.Stat(filepath.Join(clusterDir, clusterFile)); err != nil {
		t.Fatalf("the participant's cluster is not in its own directory: %v", err)
	}
	from := s.clusters.get(p.ID).openedFrom
	ts.Close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s2, ts2 := newRolesServer(t, Options{DataDir: dir, InstructorToken: "teacher"})
	back := s2.clusters.get(p.ID)
	if back == nil || back.ownerName != "Ana" || back.summary().LastCommand != "produce orders key=k value=kept partition=0" {
		t.Fatalf("after a restart the cluster is %+v", back)
	}
	// The per-address limit still counts it: a restart gives no address
	// its places again.
	if from == "" || s2.clusters.openedFrom(from) != 1 {
		t.Errorf("after a restart %d clusters count as opened from %q, want 1", s2.clusters.openedFrom(from), from)
	}
	// Her token still drives it, and her record is still there.
	status, got, _ := command(t, ts2, p.ID, p.Token, "show log orders/0")
	if status != http.StatusOK || !strings.Contains(got.Output, "kept") {
		t.Fatalf("reading the log after the restart: %d %+v", status, got)
	}

	// The record fetch reads her cluster's files, by its id, once its
	// brokers have caught up with the metadata after the restart.
	command(t, ts2, p.ID, p.Token, "tick 5s")
	resp, err := http.Get(ts2.URL + "/api/v1/clusters/" + p.ID + "/topics/orders/partitions/0/records?offset=0&format=json")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"value":"a2VwdA=="`) { // base64 of "kept"
		t.Errorf("fetching from her cluster: %d %s", resp.StatusCode, body)
	}
	if resp, _ := http.Get(ts2.URL + "/api/v1/clusters/p-00000000/topics/orders/partitions/0/records?offset=0"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("fetching from an unknown cluster: %d", resp.StatusCode)
	}

	now := s2.now()
	if removed := s2.removeIdle(now.Add(time.Minute)); len(removed) != 0 {
		t.Fatalf("a cluster used a minute ago was removed: %v", removed)
	}
	// A record from long ago: the cluster is restored, then kept for the
	// grace period only, not for another participantIdle.
	ts2.Close()
	s2.Close()
	recPath := filepath.Join(clusterDir, participantFile)
	data, _ := os.ReadFile(recPath)
	var rec participantRecord
	json.Unmarshal(data, &rec)
	rec.LastActive = now.Add(-7 * 24 * time.Hour)
	data, _ = json.Marshal(rec)
	os.WriteFile(recPath, data, 0o644)
	s2, _ = newRolesServer(t, Options{DataDir: dir, InstructorToken: "teacher"})
	now = s2.now()
	if removed := s2.removeIdle(now.Add(time.Minute)); len(removed) != 0 {
		t.Fatalf("a cluster used a minute ago was removed: %v", removed)
	}
	if removed := s2.removeIdle(now.Add(restoreGrace + time.Minute)); len(removed) != 1 || removed[0] != p.ID {
		t.Fatalf("removed %v after the grace period, want [%s]", removed, p.ID)
	}
	if _, err := os.Stat(clusterDir); !os.IsNotExist(err) {
		t.Errorf("the idle cluster's files are still there: %v", err)
	}
	if s2.clusters.get(p.ID) != nil {
		t.Errorf("the idle cluster is still listed")
	}
}

// A cluster's command log downloads as a script that replays it: for its
// owner and the instructor, not for another participant.
func TestTheCommandLogDownloadsAsAScript(t *testing.T) {
	_, ts := newRolesServer(t, Options{InstructorToken: "teacher"})
	a := openCluster(t, ts, "", "Ana")
	b := openCluster(t, ts, "", "Bo")
	command(t, ts, a.ID, a.Token, "produce orders key=k value=replayed partition=2")
	get := func(token string) (int, string, http.Header) {
		req, _ := http.NewRequest(http.MethodGet, ts.URL+"/api/v1/clusters/"+a.ID+"/commands.log", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body), resp.Header
	}
	if status, _, _ := get(b.Token); status != http.StatusForbidden {
		t.Errorf("another participant downloading Ana's log: %d", status)
	}
	for _, token := range []string{a.Token, "teacher"} {
		status, script, h := get(token)
		if status != http.StatusOK || !strings.Contains(h.Get("Content-Disposition"), "attachment") || h.Get("X-Loglab-Log-Whole") != "true" {
			t.Fatalf("downloading the log: %d %v", status, h)
		}
		l := lab.New()
		var out strings.Builder
		if failed, err := l.RunScript(strings.NewReader(script), &out); err != nil || failed != 0 {
			t.Fatalf("replaying the downloaded log: %d failed, %v\n%s", failed, err, out.String())
		}
		if view, _ := l.Run("show log orders/2"); !strings.Contains(view, "replayed") {
			t.Errorf("the replay lacks the record:\n%s\nscript:\n%s", view, script)
		}
		l.Close()
	}
}

// A participant cluster whose record was never written (the server was
// killed while opening it, before its owner heard of it) is removed at
// the next start, not reported at every start for ever; a directory that
// is not loglab's (another name) is left alone.
func TestOrphanedParticipantFolderIsRemovedAtStart(t *testing.T) {
	dir := t.TempDir()
	orphan := filepath.Join(dir, participantsDir, "p-0123abcd")
	notOurs := filepath.Join(dir, participantsDir, "slides")
	for _, d := range []string{filepath.Join(orphan, "broker-1"), notOurs} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s, _ := newRolesServer(t, Options{DataDir: dir, InstructorToken: "teacher"})
	if _, err := os.Stat(orphan); !os.IsNotExist(err) {
		t.Errorf("the orphaned cluster folder is still there: %v", err)
	}
	if _, err := os.Stat(notOurs); err != nil {
		t.Errorf("a folder that is not loglab's was touched: %v", err)
	}
	if s.clusters.count() != 0 {
		t.Errorf("%d participant clusters listed", s.clusters.count())
	}
}
