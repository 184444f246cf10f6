package server

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/loglab/loglab/web"
)

// A cluster's updates form a stream: each published update gets the next
// id, and carries only the fragments of the view (web.ClusterFragments)
// whose HTML changed since the update before it. A page that applied
// every update up to id N holds the view as of N; it may come back with
// ?since=N after losing its connection and be sent what it missed.

// update is one websocket message of type "update": transcript entries to
// append and the view's changes, as HTML, in the shape the WASM bridge
// hands the page (which sends whole views, without id). A page applies
// View first (the whole view), then each fragment by its key, then
// appends Entry (after emptying its transcript when Clear).
type update struct {
	Type string `json:"type"` // "update"
	// ID is the last update of the cluster's stream this one includes;
	// At is when that update was published (server wall clock, Unix ms).
	ID        uint64         `json:"id,omitempty"`
	At        int64          `json:"at,omitempty"`
	Entry     string         `json:"entry,omitempty"`
	View      string         `json:"view,omitempty"`
	Fragments []fragmentHTML `json:"fragments,omitempty"`
	// Clear: the page empties its transcript before appending Entry: a
	// lesson rebuilt the lab by replay, or this is a snapshot carrying
	// the whole (bounded) history.
	Clear bool `json:"clear,omitempty"`
	// Private: an entry told to this page alone (a refusal of its
	// command), not part of the cluster's stream: it changes nothing, and
	// carries the id of the last update of the stream.
	Private bool `json:"private,omitempty"`
}

// fragmentHTML is one fragment of the view an update replaces; the
// browser lab's updates carry the same (web.ChangedFragments).
type fragmentHTML = web.FragmentChange

// viewChange is an update before it is marshalled: what the session
// publishes, the ring keeps and a slow page's queue merges.
type viewChange struct {
	id        uint64
	at        int64
	entries   []string // transcript entries' HTML, in order
	clear     bool
	view      string         // the whole view, "" when unchanged or sent as fragments
	fragments []fragmentHTML // applied after view
	updates   int            // how many published updates this one stands for
	private   bool           // see update.Private

	// A published change is shared by every subscriber: marshalled once.
	once sync.Once
	msg  []byte
	err  error
}

func (c *viewChange) empty() bool {
	return len(c.entries) == 0 && !c.clear && c.view == "" && len(c.fragments) == 0
}

// message is the change as its websocket message.
func (c *viewChange) message() ([]byte, error) {
	c.once.Do(func() {
		u := update{Type: "update", ID: c.id, At: c.at, View: c.view, Fragments: c.fragments, Clear: c.clear, Private: c.private}
		n := 0
		for _, e := range c.entries {
			n += len(e)
		}
		b := make([]byte, 0, n)
		for _, e := range c.entries {
			b = append(b, e...)
		}
		u.Entry = string(b)
		c.msg, c.err = marshalHTML(u)
	})
	return c.msg, c.err
}

// marshalHTML is json.Marshal without escaping <, > and & as \u003c...:
// an update is mostly HTML, which the escapes made about a third larger.
// A page parses the message with JSON.parse, never as HTML.
func marshalHTML(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// size is about how many bytes the change holds, for the ring's bound.
func (c *viewChange) size() int {
	n := len(c.view)
	for _, e := range c.entries {
		n += len(e)
	}
	for _, f := range c.fragments {
		n += len(f.Key) + len(f.HTML)
	}
	return n
}

// mergedWith is c followed by next as one change, as a page applying both
// would end up: next's entries after c's (or alone, when next clears),
// next's whole view replacing c's view and fragments, the latest HTML of
// each fragment, applied after the older ones. c and next are left untouched: they may be shared.
func (c *viewChange) mergedWith(next *viewChange) *viewChange {
	m := &viewChange{id: next.id, at: next.at, clear: c.clear || next.clear, view: c.view, updates: c.updates + next.updates, private: c.private && next.private}
	if next.clear {
		m.entries = append([]string(nil), next.entries...)
	} else {
		m.entries = append(append(make([]string, 0, len(c.entries)+len(next.entries)), c.entries...), next.entries...)
	}
	if next.view != "" {
		m.view = next.view
	} else {
		m.fragments = append([]fragmentHTML(nil), c.fragments...)
	}
	// A page applies fragments in order, and one may hold another (a
	// topic its partitions): a fragment sent again goes last, after any
	// older one that holds it.
	for _, f := range next.fragments {
		for i := range m.fragments {
			if m.fragments[i].Key == f.Key {
				m.fragments = append(m.fragments[:i], m.fragments[i+1:]...)
				break
			}
		}
		m.fragments = append(m.fragments, f)
	}
	if next.updates == 0 {
		// A private entry (tellLocked) is not in the stream: it carries
		// the id of the last update, and the merge keeps the time c's
		// update was published.
		m.id, m.at = max(c.id, next.id), c.at
	}
	return m
}

// The ring of recent updates a returning page is replayed from: bounded in
// count and in bytes (a full view is tens of KB), since every cluster of a
// workshop keeps one. A page away for longer gets a snapshot.
const (
	ringUpdates = 128
	ringBytes   = 512 << 10
)

// updateStream is a session's stream, with s.mu held.
type updateStream struct {
	last  uint64                 // the id of the last update published; see lastID
	shown []web.RenderedFragment // the view's fragments as of last
	ring  []*viewChange          // consecutive ids, oldest first
	bytes int                    // held by ring
	// now is the wall clock, for At and the first id; a test sets it.
	now func() time.Time
	// withheld are the keys of fragments whose drawing changed since the
	// pages got it, left out by nextHolding (shown keeps what pages
	// show); pace is when the paced ones were last sent (pacing.go).
	withheld []string
	pace     fragmentPace
	// snapshots is the last snapshot drawn, shared by pages that connect
	// before the next update.
	snapshots snapshotCache
}

func (st *updateStream) clock() time.Time {
	if st.now != nil {
		return st.now()
	}
	return time.Now()
}

// lastID is the id of the last update published. The first id follows
// the wall clock in milliseconds when the stream starts, not 1: a server
// restarted starts its stream after every id the previous run gave out
// (unless it published more than one update per millisecond on average),
// so a page resuming with an id of the previous run is never replayed
// another run's updates as if they followed its own.
func (st *updateStream) lastID() uint64 {
	if st.last == 0 {
		st.last = uint64(st.clock().UnixMilli())
	}
	return st.last
}

// next makes the update after the current one: frags is the view now, and
// the update carries the fragments that differ from the view last
// published, or the whole view when the list of fragments changed (a topic
// or a panel appeared or went). It returns nil when nothing changed.
func (st *updateStream) next(ctx context.Context, entries []string, clear bool, frags []web.RenderedFragment) (*viewChange, error) {
	return st.nextHolding(ctx, entries, clear, frags, nil)
}

// nextHolding is next, leaving out the changed fragments whose key hold
// reports (nil: none): pages keep their drawing as last sent, shown keeps
// it too, so the update that next carries them carries their drawing then
// (never a skipped one), and withholding reports them owed until then. A
// whole view (the panels shown changed) holds nothing back.
func (st *updateStream) nextHolding(ctx context.Context, entries []string, clear bool, frags []web.RenderedFragment, hold func(key string) bool) (*viewChange, error) {
	c := &viewChange{entries: entries, clear: clear, updates: 1}
	shown := frags
	var withheld []string
	if web.SameFragmentKeys(st.shown, frags) {
		for i, f := range frags {
			if hold != nil && f.HTML != st.shown[i].HTML && hold(f.Key) {
				if withheld == nil {
					shown = append([]web.RenderedFragment(nil), frags...)
				}
				shown[i] = st.shown[i]
				withheld = append(withheld, f.Key)
				continue
			}
			c.fragments = web.AppendChangedFragment(c.fragments, st.shown[i], f)
		}
	} else {
		view, err := web.RenderString(ctx, web.RenderedView(frags))
		if err != nil {
			return nil, err
		}
		c.view = view
	}
	st.shown, st.withheld = shown, withheld
	if c.empty() {
		return nil, nil
	}
	c.id = st.lastID() + 1
	st.last = c.id
	c.at = st.clock().UnixMilli()
	st.remember(c)
	return c, nil
}

// withholding reports whether pages show a fragment older than the view
// as last rendered, left out by nextHolding.
func (st *updateStream) withholding() bool { return len(st.withheld) > 0 }

func (st *updateStream) remember(c *viewChange) {
	st.ring = append(st.ring, c)
	st.bytes += c.size()
	for len(st.ring) > 1 && (len(st.ring) > ringUpdates || st.bytes > ringBytes) {
		st.bytes -= st.ring[0].size()
		st.ring[0] = nil
		st.ring = st.ring[1:]
	}
}

// since is what a page that applied the stream up to id n missed, merged
// into one change (nil: nothing), and whether the ring still holds all of
// it. An id the stream never gave out (a previous server run's, a
// client's guess) is not resumable either.
func (st *updateStream) since(n uint64) (*viewChange, bool) {
	last := st.lastID()
	if n == last {
		return nil, true
	}
	if n > last || len(st.ring) == 0 || st.ring[0].id > n+1 {
		return nil, false
	}
	i := int(n + 1 - st.ring[0].id)
	missed := st.ring[i]
	for _, c := range st.ring[i+1:] {
		missed = missed.mergedWith(c)
	}
	return missed, true
}

// snapshotDraft is what a snapshot is drawn from: the whole state as of
// the last update, taken with the session's mutex held, to be drawn
// without it. Drawing it (the transcript's entries, the whole view) is
// the expensive part, and pages reconnecting in a loop with ?since=0
// held every command of the cluster up while it was drawn under the lock.
// Nothing in it changes after it is taken: the history is a copy, and
// the fragments are never changed in place (nextHolding makes a new list).
type snapshotDraft struct {
	id      uint64
	at      int64
	history []web.Entry
	shown   []web.RenderedFragment
	cache   *snapshotCache // the stream's: drafts of one state share a drawing
}

// snapshotDraft takes a snapshot of the stream with history, the
// session's transcript; frags is the view now, drawn only when nothing
// was published yet (it becomes the view later updates are compared
// with), with the session's mutex held.
func (st *updateStream) snapshotDraft(history []web.Entry, frags func() ([]web.RenderedFragment, error)) (*snapshotDraft, error) {
	if st.shown == nil {
		f, err := frags()
		if err != nil {
			return nil, err
		}
		st.shown = f
	}
	return &snapshotDraft{id: st.lastID(), at: st.clock().UnixMilli(), history: append([]web.Entry(nil), history...), shown: st.shown, cache: &st.snapshots}, nil
}

// render draws the snapshot: the view, and the transcript history
// replacing the page's (clear). It needs no lock: it shares the drawing
// of the same state with every other page (snapshot_cache.go).
func (d *snapshotDraft) render(ctx context.Context) (*viewChange, error) {
	if d.cache == nil {
		return d.draw(ctx)
	}
	return d.cache.get(ctx, d)
}

// draw draws the snapshot d is a draft of.
func (d *snapshotDraft) draw(ctx context.Context) (*viewChange, error) {
	entries, err := renderEntries(ctx, d.history)
	if err != nil {
		return nil, err
	}
	view, err := web.RenderString(ctx, web.RenderedView(d.shown))
	if err != nil {
		return nil, err
	}
	return &viewChange{id: d.id, at: d.at, entries: entries, clear: true, view: view}, nil
}
