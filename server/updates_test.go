package server

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"golang.org/x/net/html"

	"github.com/loglab/loglab/web"
)

// pageModel is what static/app.js makes of the updates it applies: the
// view, in which it swaps each fragment by its data-fragment key (a topic,
// or a partition inside one), and the transcript. It fails where the page
// would go wrong: a fragment whose key it does not show.
type pageModel struct {
	html       string
	transcript string
	id         uint64
}

func (p *pageModel) apply(t *testing.T, raw []byte) update {
	t.Helper()
	var u update
	if err := json.Unmarshal(raw, &u); err != nil || u.Type != "update" {
		t.Fatalf("not an update: %.300s (%v)", raw, err)
	}
	if u.ID < p.id {
		t.Fatalf("update %d after update %d", u.ID, p.id)
	}
	p.id = u.ID
	if u.View != "" {
		p.html = u.View
	}
	for _, f := range u.Fragments {
		start, end, ok := findKeyed(t, p.html, f.Key)
		if !ok {
			t.Fatalf("fragment %q is not on the page", f.Key)
		}
		if _, _, ok := findKeyed(t, f.HTML, f.Key); !ok {
			t.Fatalf("fragment %q's HTML does not carry its key: %.200s", f.Key, f.HTML)
		}
		p.html = p.html[:start] + f.HTML + p.html[end:]
	}
	if u.Clear {
		p.transcript = ""
	}
	p.transcript += u.Entry
	return u
}

func (p *pageModel) view(*testing.T) string { return p.html }

// fragment is the HTML the page shows for key.
func (p *pageModel) fragment(t *testing.T, key string) string {
	t.Helper()
	start, end, ok := findKeyed(t, p.html, key)
	if !ok {
		t.Fatalf("no fragment %q on the page", key)
	}
	return p.html[start:end]
}

// findKeyed is where the element carrying data-fragment="key" starts and
// ends in html, as the page's querySelector finds it.
func findKeyed(t *testing.T, doc, key string) (start, end int, ok bool) {
	t.Helper()
	z := html.NewTokenizer(strings.NewReader(doc))
	offset, depth := 0, 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if !errors.Is(z.Err(), io.EOF) {
				t.Fatalf("the view does not parse: %v", z.Err())
			}
			return 0, 0, false
		}
		raw := len(z.Raw())
		switch tt {
		case html.StartTagToken:
			tok := z.Token()
			void := voidTag(tok.Data)
			switch {
			case depth > 0 && !void:
				depth++
			case depth == 0 && !void:
				for _, a := range tok.Attr {
					if a.Key == "data-fragment" && a.Val == key {
						start, depth = offset, 1
					}
				}
			}
		case html.EndTagToken:
			if depth > 0 {
				depth--
				if depth == 0 {
					return start, offset + raw, true
				}
			}
		}
		offset += raw
	}
}

func voidTag(name string) bool {
	switch name {
	case "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr":
		return true
	}
	return false
}

func quietSession(t *testing.T) *liveSession {
	t.Helper()
	s, err := newLiveSession("", nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.lab.Close() })
	return s
}

// nextMessage takes a subscriber's oldest queued message, as its page's
// writer would send it.
func nextMessage(t *testing.T, sub *subscriber) []byte {
	t.Helper()
	for {
		sub.mu.Lock()
		if len(sub.queue) > 0 {
			q := sub.queue[0]
			sub.queue = sub.queue[1:]
			sub.behind = 0
			sub.mu.Unlock()
			if q.change == nil {
				return q.msg
			}
			msg, err := q.change.message()
			if err != nil {
				t.Fatal(err)
			}
			return msg
		}
		sub.mu.Unlock()
		select {
		case <-sub.ready:
		case <-time.After(time.Minute):
			t.Fatal("no message queued")
		}
	}
}

// queuedMessages takes everything queued, as the writer does.
func queuedMessages(t testing.TB, sub *subscriber) [][]byte {
	t.Helper()
	var out [][]byte
	for _, q := range sub.take() {
		if q.change == nil {
			out = append(out, q.msg)
			continue
		}
		msg, err := q.change.message()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, msg)
	}
	return out
}

// quietUpdates takes the queue and counts its updates with no
// transcript entry that change the view.
func quietUpdates(t testing.TB, sub *subscriber) int {
	t.Helper()
	n := 0
	for _, raw := range queuedMessages(t, sub) {
		var u update
		if json.Unmarshal(raw, &u) == nil && u.Type == "update" && u.Entry == "" && (u.View != "" || len(u.Fragments) > 0) {
			n++
		}
	}
	return n
}

func currentView(t *testing.T, s *liveSession) string {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	v, err := web.RenderString(context.Background(), web.ClusterView(s.lab.View()))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Command sequences that change one panel, several, the list of topics
// (a whole view), the inspector, and the whole cluster: after each, a page
// that swapped the fragments it was sent shows exactly the view a fresh
// render draws, and each fragment it was sent had changed.
func TestFragmentUpdatesRebuildTheWholeView(t *testing.T) {
	for name, lines := range map[string][]string{
		"produce and time": {"produce orders key=a value=1", "tick 1s", "produce orders key=b value=2 partition=1", "stabilize"},
		"topics and faults": {"topic create payments partitions=2", "produce payments key=p value=9 partition=0", "broker crash 2",
			"tick 10s", "show batch payments/0 offset=0", "broker restart 2", "stabilize", "check invariants"},
		"groups and a new cluster": {"produce orders key=a value=1 count=5", "consumer create c1 group=g topics=orders auto.offset.reset=earliest",
			"poll c1", "tick 5s", "cluster brokers=1 seed=3", "topic create t", "produce t value=x"},
	} {
		t.Run(name, func(t *testing.T) {
			s := quietSession(t)
			sub := s.resume(func() {}, 0)
			var p pageModel
			snap := p.apply(t, nextMessage(t, sub))
			if !snap.Clear || snap.View == "" || snap.ID == 0 {
				t.Fatalf("the first message is not a snapshot: clear %v, view %d bytes, id %d", snap.Clear, len(snap.View), snap.ID)
			}
			if got, want := p.view(t), currentView(t, s); got != want {
				t.Fatal("the snapshot is not the view")
			}
			for _, line := range lines {
				before := p
				id := p.id
				if e := s.run(line); !e.OK {
					t.Fatalf("%s: %s", line, e.Output)
				}
				u := p.apply(t, nextMessage(t, sub))
				if u.ID != id+1 || u.At == 0 {
					t.Fatalf("%s: update id %d at %d after id %d", line, u.ID, u.At, id)
				}
				if !strings.Contains(u.Entry, line) {
					t.Fatalf("%s: the update's entry lacks the command: %.200s", line, u.Entry)
				}
				if u.View == "" {
					for _, f := range u.Fragments {
						if before.fragment(t, f.Key) == f.HTML {
							t.Errorf("%s: fragment %s was sent unchanged", line, f.Key)
						}
					}
				}
				if got, want := p.view(t), currentView(t, s); got != want {
					t.Fatalf("%s: the page's view after applying %d fragments (whole view %v) differs from the view", line, len(u.Fragments), u.View != "")
				}
			}
		})
	}
}

// The numbers for the report: bytes of a typical command's update on the
// starter cluster, as a whole view (before fragments) and as fragments.
func TestFragmentUpdateIsSmallerThanTheView(t *testing.T) {
	s := quietSession(t)
	sub := s.subscribe(func() {})
	for _, line := range []string{"produce orders key=a value=1", "tick 100ms", "produce orders key=b value=2 partition=1"} {
		s.run(line)
		raw := nextMessage(t, sub)
		var u update
		if err := json.Unmarshal(raw, &u); err != nil {
			t.Fatal(err)
		}
		// Before: json.Marshal of the entry and the whole view.
		whole, err := json.Marshal(update{Type: "update", Entry: u.Entry, View: currentView(t, s)})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%-45s whole view %6d bytes (%5d deflated), fragments %6d bytes (%5d deflated; %d fragments)",
			line, len(whole), deflated(t, whole), len(raw), deflated(t, raw), len(u.Fragments))
		if u.View != "" || len(raw) >= len(whole) {
			t.Errorf("%s: the update (%d bytes) is not fragments smaller than the whole view (%d bytes)", line, len(raw), len(whole))
		}
		if strings.HasSuffix(line, "partition=1") {
			var keys []string
			for _, f := range u.Fragments {
				keys = append(keys, f.Key)
			}
			// One partition of the topic changed: it alone is sent.
			if k := strings.Join(keys, " "); !strings.Contains(k, "topic/orders/1") || strings.Contains(k+" ", "topic/orders ") || strings.Contains(k, "topic/orders/0") {
				t.Errorf("%s: fragments %s, want the partition's alone of the topic", line, k)
			}
		}
	}
}

// deflated is about the bytes permessage-deflate sends for msg
// (coder/websocket compresses each message alone at BestSpeed).
func deflated(t *testing.T, msg []byte) int {
	t.Helper()
	var b bytes.Buffer
	w, err := flate.NewWriter(&b, flate.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(msg)
	w.Close()
	return b.Len()
}

// A page that does not keep up gets, once it catches up, one update
// standing for all it missed, not a queue of stale views: and applying it
// gives the page what applying every update would have.
func TestSlowPageGetsCoalescedUpdates(t *testing.T) {
	s := quietSession(t)
	fast, slow := s.resume(func() {}, 0), s.resume(func() {}, 0)
	published := s.stats().Published
	var fp, sp pageModel
	fp.apply(t, nextMessage(t, fast))
	sp.apply(t, nextMessage(t, slow))
	const commands = queuedBeforeCoalescing * 3
	for i := range commands {
		s.run(fmt.Sprintf("produce orders key=k value=v%d", i))
		fp.apply(t, nextMessage(t, fast))
		slow.mu.Lock()
		if n := len(slow.queue); n > queuedBeforeCoalescing {
			t.Fatalf("the slow page's queue holds %d messages", n)
		}
		slow.mu.Unlock()
	}
	msgs := queuedMessages(t, slow)
	if len(msgs) >= commands/2 {
		t.Fatalf("the slow page is sent %d messages for %d updates", len(msgs), commands)
	}
	for _, m := range msgs {
		sp.apply(t, m)
	}
	if sp.id != fp.id || sp.view(t) != fp.view(t) || sp.transcript != fp.transcript {
		t.Fatalf("the slow page (id %d, %d entries) does not show what the fast one does (id %d, %d entries)",
			sp.id, strings.Count(sp.transcript, `class="entry"`), fp.id, strings.Count(fp.transcript, `class="entry"`))
	}
	if st := s.stats(); st.Coalesced != uint64(commands-len(msgs)) || st.Dropped != 0 || st.Published-published != commands {
		t.Fatalf("stats %+v: want %d coalesced of %d published", st, commands-len(msgs), commands)
	}
}

// Coalescing keeps the order of transcript entries, lets a clearing
// update or a whole view supersede what came before, and keeps the
// latest HTML of each fragment, applied after any older fragment holding
// it (a partition after its topic).
func TestMergedChangesKeepOrderAndLatestFragments(t *testing.T) {
	a := &viewChange{id: 1, at: 10, entries: []string{"a"}, fragments: []fragmentHTML{{Key: "x", HTML: "x1"}, {Key: "y", HTML: "y1"}}, updates: 1}
	b := &viewChange{id: 2, at: 20, entries: []string{"b"}, fragments: []fragmentHTML{{Key: "y", HTML: "y2"}, {Key: "z", HTML: "z2"}}, updates: 1}
	tell := &viewChange{id: 2, at: 25, entries: []string{"refused"}}
	view := &viewChange{id: 3, at: 30, entries: []string{"c"}, view: "V", updates: 1}
	after := &viewChange{id: 4, at: 40, fragments: []fragmentHTML{{Key: "x", HTML: "x4"}}, updates: 1}
	clear := &viewChange{id: 5, at: 50, entries: []string{"replay"}, clear: true, updates: 1}
	part := &viewChange{id: 6, at: 60, fragments: []fragmentHTML{{Key: "t/0", HTML: "p1"}}, updates: 1}
	topic := &viewChange{id: 7, at: 70, fragments: []fragmentHTML{{Key: "t", HTML: "T"}}, updates: 1}
	part2 := &viewChange{id: 8, at: 80, fragments: []fragmentHTML{{Key: "t/0", HTML: "p2"}}, updates: 1}
	topic2 := &viewChange{id: 8, at: 80, fragments: []fragmentHTML{{Key: "t", HTML: "T2"}}, updates: 1}
	for _, tc := range []struct {
		name  string
		chain []*viewChange
		want  string
	}{
		{"fragments", []*viewChange{a, b}, `id 2 at 20 [a b] clear false view "" [{x x1} {y y2} {z z2}] updates 2`},
		{"a private entry", []*viewChange{a, tell, b}, `id 2 at 20 [a refused b] clear false view "" [{x x1} {y y2} {z z2}] updates 2`},
		{"a whole view supersedes", []*viewChange{a, b, view, after}, `id 4 at 40 [a b c] clear false view "V" [{x x4}] updates 4`},
		{"a clear supersedes entries", []*viewChange{a, clear, b}, `id 2 at 20 [replay b] clear true view "" [{x x1} {y y2} {z z2}] updates 3`},
		{"a part after the fragment holding it", []*viewChange{part, topic, part2}, `id 8 at 80 [] clear false view "" [{t T} {t/0 p2}] updates 3`},
		{"a fragment after its part", []*viewChange{part, topic, topic2}, `id 8 at 80 [] clear false view "" [{t/0 p1} {t T2}] updates 3`},
	} {
		m := tc.chain[0]
		for _, c := range tc.chain[1:] {
			m = m.mergedWith(c)
		}
		got := fmt.Sprintf("id %d at %d %v clear %v view %q %v updates %d", m.id, m.at, m.entries, m.clear, m.view, m.fragments, m.updates)
		if got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
	if len(a.fragments) != 2 || a.fragments[1].HTML != "y1" || len(a.entries) != 1 {
		t.Fatal("merging changed a shared change")
	}
}

// A page that stays behind is disconnected, with what it missed counted
// as dropped; the session never waited for it, and a page that keeps up
// goes on.
func TestPageStayingBehindIsDropped(t *testing.T) {
	s := quietSession(t)
	closed := make(chan struct{})
	stuck := s.resume(func() { close(closed) }, 0)
	other := s.resume(func() {}, 0)
	var op pageModel
	op.apply(t, nextMessage(t, other))
	n := 0
	for ; n < maxPendingEntries+maxBehindUpdates; n++ {
		select {
		case <-closed:
		default:
			s.run("tick 1ms")
			op.apply(t, nextMessage(t, other))
			stuck.mu.Lock()
			if len(stuck.queue) > queuedBeforeCoalescing+1 {
				t.Fatalf("the stuck page's queue holds %d messages", len(stuck.queue))
			}
			stuck.mu.Unlock()
			continue
		}
		break
	}
	select {
	case <-closed:
	case <-time.After(time.Minute):
		t.Fatalf("a page %d updates behind was not disconnected", n)
	}
	if n > maxPendingEntries+1 {
		t.Fatalf("disconnected only after %d updates behind", n)
	}
	st := s.stats()
	if st.SlowPages != 1 || st.Dropped == 0 || st.Dropped > uint64(n) {
		t.Fatalf("stats after dropping a page %d updates behind: %+v", n, st)
	}
	stuck.mu.Lock()
	if stuck.queue != nil || !stuck.gone {
		t.Fatal("the dropped page still holds its queue")
	}
	stuck.mu.Unlock()
	s.run("tick 1ms")
	if u := op.apply(t, nextMessage(t, other)); !strings.Contains(u.Entry, "tick 1ms") {
		t.Fatal("the page that keeps up stopped getting updates")
	}
}

// A page back from a short outage is sent exactly what it missed, merged;
// one away for longer than the ring holds, or with an id this server never
// gave out, gets a snapshot: never a gap.
func TestResumeReplaysTheMissedUpdatesOrSendsASnapshot(t *testing.T) {
	s := quietSession(t)
	watcher := s.resume(func() {}, 0)
	var wp pageModel
	wp.apply(t, nextMessage(t, watcher))
	for i := range 3 {
		s.run(fmt.Sprintf("produce orders key=k value=before-%d", i))
		wp.apply(t, nextMessage(t, watcher))
	}
	left := wp // the page as it was when its connection dropped
	missed := []string{"produce orders key=k value=missed-0", "topic create other", "produce other value=missed-1", "tick 1s"}
	for _, line := range missed {
		s.run(line)
		wp.apply(t, nextMessage(t, watcher))
	}

	back := s.resume(func() {}, left.id)
	msgs := queuedMessages(t, back)
	if len(msgs) != 2 {
		t.Fatalf("a resumed page got %d messages, want the missed updates merged and the lesson status", len(msgs))
	}
	u := left.apply(t, msgs[0])
	if u.Clear || strings.Count(u.Entry, `class="entry"`) != len(missed) {
		t.Fatalf("the replay is not the %d missed entries: clear %v, %.300s", len(missed), u.Clear, u.Entry)
	}
	for _, line := range missed {
		if !strings.Contains(u.Entry, line) {
			t.Fatalf("the replay lacks %q", line)
		}
	}
	if left.id != wp.id || left.view(t) != wp.view(t) || left.transcript != wp.transcript {
		t.Fatal("the resumed page does not show what the page that stayed shows")
	}
	if st := s.stats(); st.Replayed != 1 {
		t.Fatalf("stats: %+v", st)
	}

	// Nothing missed: nothing but the lesson status.
	if msgs := queuedMessages(t, s.resume(func() {}, wp.id)); len(msgs) != 1 || !strings.Contains(string(msgs[0]), `"type":"lesson"`) {
		t.Fatalf("a page that missed nothing got %d messages", len(msgs))
	}

	oldest := wp.id
	for range ringUpdates + 1 {
		s.run("tick 1ms")
	}
	for name, since := range map[string]uint64{"too old": oldest, "unknown": wp.id + 10*ringUpdates} {
		msgs := queuedMessages(t, s.resume(func() {}, since))
		var fresh pageModel
		u := fresh.apply(t, msgs[0])
		if !u.Clear || u.View == "" || !strings.Contains(u.Entry, "tick 1ms") {
			t.Fatalf("%s: not a snapshot: clear %v, view %d bytes", name, u.Clear, len(u.View))
		}
		if fresh.view(t) != currentView(t, s) {
			t.Fatalf("%s: the snapshot is not the view", name)
		}
	}
}

// reader reads a connection until it closes, answering pings meanwhile.
func reader(c *websocket.Conn) <-chan []byte {
	out := make(chan []byte, 256)
	go func() {
		defer close(out)
		for {
			_, data, err := c.Read(context.Background())
			if err != nil {
				return
			}
			out <- data
		}
	}()
	return out
}

// A page whose machine went away answers no ping: the server closes it,
// and the room's commands never waited for it.
func TestDeadPageIsClosedAfterAPingWithoutAnswer(t *testing.T) {
	oldEvery, oldWait := pingEvery, pongWait
	pingEvery, pongWait = 50*time.Millisecond, 2*time.Second
	t.Cleanup(func() { pingEvery, pongWait = oldEvery, oldWait })
	s, ts := newTestServer(t)
	alive := dial(t, ts)
	msgs := reader(alive)
	dead := dial(t, ts) // never read: never answers a ping
	_ = dead
	waitForSubscribers(t, s, 2)
	for i := range 3 {
		sendCommand(t, alive, fmt.Sprintf("produce orders key=k value=while-dead-%d", i))
	}
	deadline := time.After(time.Minute)
	for seen := 0; seen < 3; {
		select {
		case m, ok := <-msgs:
			if !ok {
				t.Fatal("the live page was closed")
			}
			if strings.Contains(string(m), "while-dead-") {
				seen++
			}
		case <-deadline:
			t.Fatal("the live page's updates stopped")
		}
	}
	// The dead page goes; the live one, answering pings, stays.
	for {
		s.live.mu.Lock()
		n := len(s.live.subscribers)
		s.live.mu.Unlock()
		if n == 1 {
			break
		}
		select {
		case <-deadline:
			t.Fatalf("%d pages still subscribed", n)
		case <-time.After(10 * time.Millisecond):
		}
	}
	if st := s.UpdateStats(); st.DeadPages != 1 || st.Sent == 0 || st.SentBytes == 0 {
		t.Fatalf("the server's update stats: %+v", st)
	}
	sendCommand(t, alive, "produce orders key=k value=after")
	for m := range msgs {
		if strings.Contains(string(m), "value=after") {
			return
		}
	}
	t.Fatal("the live page was closed")
}

// Over the websocket: ?since=0 starts with a snapshot carrying the stream's
// id; a page that comes back with the id it applied gets what it missed.
func TestWebsocketResumesFromTheLastUpdateID(t *testing.T) {
	s, ts := newTestServer(t)
	open := func(since uint64) *websocket.Conn {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		c, _, err := websocket.Dial(ctx, fmt.Sprintf("ws%s/ws?since=%d", strings.TrimPrefix(ts.URL, "http"), since), nil)
		if err != nil {
			t.Fatal(err)
		}
		c.SetReadLimit(4 << 20)
		t.Cleanup(func() { c.CloseNow() })
		return c
	}
	var p pageModel
	c := open(0)
	if u := p.apply(t, readRaw(t, c)); !u.Clear || u.View == "" {
		t.Fatal("a page opened with since=0 did not start with a snapshot")
	}
	sendCommand(t, c, "produce orders key=k value=seen")
	for !strings.Contains(p.transcript, "value=seen") {
		p.apply(t, readRaw(t, c))
	}
	c.Close(websocket.StatusNormalClosure, "")
	s.live.run("produce orders key=k value=missed")
	back := open(p.id)
	for !strings.Contains(p.transcript, "value=missed") {
		if u := p.apply(t, readRaw(t, back)); u.Clear {
			t.Fatal("the page was sent a snapshot, not what it missed")
		}
	}
	if p.view(t) != currentView(t, s.live) {
		t.Fatal("the resumed page does not show the view")
	}
}

// readRaw reads the next update, skipping lesson messages.
func readRaw(t *testing.T, c *websocket.Conn) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		_, data, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data[:min(len(data), 40)]), `"type":"update"`) {
			return data
		}
	}
}

// wholeUpdate is the largest update the session can send now: the last
// entry with the whole view, as after a topic appears.
func wholeUpdate(t *testing.T, s *liveSession) []byte {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.updates.shown = nil
	c, err := s.renderUpdate(s.history[len(s.history)-1:], false)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := c.message()
	if err != nil {
		t.Fatal(err)
	}
	return msg
}

// A slow page's other messages are merged by kind: the latest lesson
// status and the latest real-time state both reach it, after the update.
func TestCoalescingKeepsTheLatestMessageOfEachKind(t *testing.T) {
	sub := newSubscriber(func() {}, &updateStats{})
	for i := range queuedBeforeCoalescing + 1 {
		sub.enqueue(queued{change: &viewChange{id: uint64(i + 1), entries: []string{fmt.Sprint(i)}, updates: 1}})
		if i == 3 {
			sub.enqueue(queued{msg: []byte(`{"type":"realtime","n":1}`), kind: "realtime"})
		}
		sub.enqueue(queued{msg: []byte(fmt.Sprintf(`{"type":"lesson","n":%d}`, i)), kind: "lesson"})
	}
	msgs := queuedMessages(t, sub)
	var entries, lastLesson, realtime string
	var id uint64
	for _, raw := range msgs {
		var u update
		json.Unmarshal(raw, &u)
		switch u.Type {
		case "update":
			entries += u.Entry
			id = u.ID
		case "lesson":
			lastLesson = string(raw)
		case "realtime":
			realtime = string(raw)
		}
	}
	if len(msgs) > queuedBeforeCoalescing || id != queuedBeforeCoalescing+1 || entries != "012345678910111213141516" ||
		realtime != `{"type":"realtime","n":1}` || lastLesson != fmt.Sprintf(`{"type":"lesson","n":%d}`, queuedBeforeCoalescing) {
		t.Fatalf("the slow page's %d messages: %q", len(msgs), msgs)
	}
}
