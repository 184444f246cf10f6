package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// overviewRow is the instructor's overview's row of one cluster.
func overviewRow(t *testing.T, page, cluster string) string {
	t.Helper()
	start := strings.Index(page, `<tr data-cluster="`+cluster+`">`)
	if start < 0 {
		t.Fatalf("the overview has no row for %s:\n%s", cluster, page)
	}
	row := page[start:]
	return row[:strings.Index(row, "</tr>")]
}

// getPage is a GET with a cookie; it returns the status and the body.
func getPage(t *testing.T, url, cookie string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if cookie != "" {
		req.Header.Set("Cookie", cookie)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// The instructor's overview says, for each participant, the lesson and the
// step they are at, how long ago they last acted (the server's clock) and
// what is wrong with their cluster; a participant still gets the refusal.
func TestTheOverviewShowsEachParticipantsLessonStepAndHealth(t *testing.T) {
	s, ts := newRolesServer(t, Options{InstructorToken: "teacher"})
	var clock atomic.Int64 // Unix seconds: the test moves it, a second per action as a person clicks
	clock.Store(1_800_000_000)
	s.now = func() time.Time { return time.Unix(clock.Load(), 0) }

	ana := openCluster(t, ts, "", "Ana")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h := http.Header{}
	h.Set("Cookie", participantCookie+"="+ana.Token)
	page, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+"/ws?cluster="+ana.ID, &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		t.Fatal(err)
	}
	page.SetReadLimit(16 << 20)
	t.Cleanup(func() { page.CloseNow() })
	// status sends a lesson action and reads to the status it brings.
	status := func(action string) {
		t.Helper()
		clock.Add(1)
		sendJSON(t, page, action)
		for {
			m := readMsg(t, page)
			if m.Type == "lesson" {
				if m.Error != "" || m.Status == nil {
					t.Fatalf("%s: %s", action, m)
				}
				return
			}
		}
	}
	status(`{"type":"lesson","action":"open","lesson":"` + testLesson + `","step":0}`)
	status(`{"type":"lesson","action":"next"}`)
	status(`{"type":"lesson","action":"answer","value":"1"}`)
	clock.Add(1)
	if code, got, _ := command(t, ts, ana.ID, ana.Token, "broker crash 3"); code != http.StatusOK || !got.OK {
		t.Fatalf("broker crash 3: %d %+v", code, got)
	}
	// Twelve seconds pass before the instructor looks.
	clock.Add(12)

	code, body := getPage(t, ts.URL+"/instructor", instructorCookie+"=teacher")
	if code != http.StatusOK {
		t.Fatalf("/instructor for the instructor: %d", code)
	}
	row := overviewRow(t, body, ana.ID)
	for _, want := range []string{
		`class="owner"`, ">Ana</td>",
		`data-lesson="` + testLesson + `"`,
		`<span class="lesson-number">4</span>`,
		"acks=1: an acknowledged write is lost when the leader crashes", // its title, both languages
		"acks=1：leader 崩溃后，已确认的写入丢失",
		`<span class="step-of">2 / 5</span>`,
		`<code class="step-name">cut-replication</code>`,
		">12 s ago<", ">12 秒前<",
		">1 broker down<", ">1 个 broker 宕机<",
		"broker crash 3",
	} {
		if !strings.Contains(row, want) {
			t.Errorf("Ana's row does not hold %q:\n%s", want, row)
		}
	}
	if strings.Contains(row, "invariant violation") || strings.Contains(row, "healthy") {
		t.Errorf("Ana's row reports a violation or health that is not there:\n%s", row)
	}
	// The instructor's own cluster plays no lesson and is whole.
	live := overviewRow(t, body, "live")
	if !strings.Contains(live, ">free play<") || !strings.Contains(live, `<span class="health-ok">`) || strings.Contains(live, "step-of") {
		t.Errorf("the instructor's row:\n%s", live)
	}

	// The same, for a script: the instructor's API listing carries it.
	var list []clusterSummary
	call(t, http.MethodGet, ts.URL+"/api/v1/clusters", "teacher", nil, &list)
	var got *clusterSummary
	for i := range list {
		if list[i].ID == ana.ID {
			got = &list[i]
		}
	}
	if got == nil || got.Lesson == nil || got.Lesson.ID != testLesson || got.Lesson.Step != 2 || got.Lesson.Steps != 5 || got.Health == nil || got.Health.BrokersDown != 1 || got.Health.Brokers != 3 {
		data, _ := json.Marshal(got)
		t.Errorf("the instructor's listing of Ana's cluster: %s", data)
	}
	// Anyone else's listing leaves them out, as it leaves the commands out.
	var theirs []json.RawMessage
	call(t, http.MethodGet, ts.URL+"/api/v1/clusters", ana.Token, nil, &theirs)
	for _, raw := range theirs {
		if strings.Contains(string(raw), `"lesson"`) || strings.Contains(string(raw), `"health"`) {
			t.Errorf("a participant's listing shows a cluster's lesson or health: %s", raw)
		}
	}

	// A participant opening the overview still reads the refusal, and
	// nothing of Ana's lesson.
	code, body = getPage(t, ts.URL+"/instructor", participantCookie+"="+ana.Token)
	if code != http.StatusForbidden || !strings.Contains(body, "只属于讲师") || strings.Contains(body, "cut-replication") || strings.Contains(body, ana.ID) {
		t.Errorf("/instructor for a participant: %d\n%s", code, body)
	}
}

// A violation the invariant checker reported shows on the overview as a
// count: the acks=1 lesson's leader crash loses an acknowledged record,
// and once the old leader is back no broker is down.
func TestTheOverviewCountsAClustersInvariantViolations(t *testing.T) {
	s, ts := newRolesServer(t, Options{InstructorToken: "teacher"})
	var tick atomic.Int64
	s.now = func() time.Time { return time.Unix(tick.Add(1), 0) }
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h := http.Header{}
	h.Set("Cookie", instructorCookie+"=teacher")
	page, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+"/ws?cluster=live", &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		t.Fatal(err)
	}
	page.SetReadLimit(16 << 20)
	t.Cleanup(func() { page.CloseNow() })
	// Step 4 of 5 (index 3): the old leader returns and truncates.
	sendJSON(t, page, `{"type":"lesson","action":"open","lesson":"`+testLesson+`","step":3}`)
	for m := readMsg(t, page); m.Type != "lesson"; m = readMsg(t, page) {
	}
	if n := s.live.summary().Health.Violations; n != 1 {
		t.Fatalf("%d violations reported after the leader's crash, want the acks=1 loss: the test's premise", n)
	}
	_, body := getPage(t, ts.URL+"/instructor", instructorCookie+"=teacher")
	row := overviewRow(t, body, "live")
	for _, want := range []string{">1 invariant violation<", ">1 处不变量被违反<", `<span class="step-of">4 / 5</span>`, `<code class="step-name">old-leader-returns</code>`} {
		if !strings.Contains(row, want) {
			t.Errorf("the live row does not hold %q:\n%s", want, row)
		}
	}
	if strings.Contains(row, "broker down") || strings.Contains(row, "healthy") {
		t.Errorf("the live row reports a broker down, or health, after the old leader returned:\n%s", row)
	}
}
