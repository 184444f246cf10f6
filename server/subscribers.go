package server

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/loglab/loglab/web"
)

// Backpressure: a page's messages wait in its own queue, and the session
// never waits for a page. A page that keeps up is sent every update as it
// was published. One that falls behind (a slow link, a busy tab) is not
// sent a queue of stale views: once queuedBeforeCoalescing messages wait,
// they are merged into one update (the latest HTML of each fragment, the
// transcript entries in order) and the latest lesson status, which it gets
// when it catches up. Only a page that stays behind (more than
// maxBehindUpdates updates, or more transcript entries than a page keeps
// plus a screenful, without taking any) is disconnected, and it then
// resumes with ?since.
const (
	queuedBeforeCoalescing = 16
	maxBehindUpdates       = 256
	maxPendingEntries      = historyShown + 64
)

// queued is one message waiting for a page: an update, or another kind
// of message (kind is its type: "lesson", the room's lesson status or a
// refusal told to that page; "realtime", the driver's state), each of
// which says the whole state of its kind.
type queued struct {
	change *viewChange
	msg    []byte
	kind   string
}

// messageKind is a message's "type".
func messageKind(msg []byte) string {
	var m struct {
		Type string `json:"type"`
	}
	json.Unmarshal(msg, &m)
	return m.Type
}

// subscriber is one connected live page.
type subscriber struct {
	closeSlow func()
	stats     *updateStats
	// viewer is who the page is to a lesson: a driver, or a participant
	// who predicts (predict.go). Set before it subscribes, never after.
	viewer

	mu     sync.Mutex
	queue  []queued
	behind int  // updates queued since the page last took its queue
	gone   bool // disconnected for staying behind
	// ready has a value when the queue has something to take.
	ready chan struct{}
}

func newSubscriber(closeSlow func(), stats *updateStats) *subscriber {
	return &subscriber{closeSlow: closeSlow, stats: stats, ready: make(chan struct{}, 1)}
}

// enqueue adds m to the page's queue, merging the queue when it is long,
// and reports false when the page is (now) disconnected for staying
// behind. Called with the session's mutex held: it never blocks.
func (sub *subscriber) enqueue(m queued) bool {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	if sub.gone {
		return false
	}
	sub.queue = append(sub.queue, m)
	if m.change != nil {
		sub.behind += m.change.updates
	}
	if len(sub.queue) > queuedBeforeCoalescing {
		sub.coalesce()
	}
	if sub.behind > maxBehindUpdates || sub.pendingEntries() > maxPendingEntries {
		sub.gone = true
		sub.stats.dropped.Add(uint64(sub.behind))
		sub.stats.slowPages.Add(1)
		sub.queue = nil
		go sub.closeSlow()
		return false
	}
	select {
	case sub.ready <- struct{}{}:
	default:
	}
	return true
}

// coalesce merges the queue into one update followed by the latest
// message of each other kind. A lesson message carries the lesson's whole
// state (a realtime one the driver's), so the latest stands for those
// before it; drawn after the view, a lesson status highlights the element
// it is about in the newest view.
func (sub *subscriber) coalesce() {
	var merged *viewChange
	var others []queued // the latest of each kind, in the order kinds came
	for _, q := range sub.queue {
		switch {
		case q.change == nil:
			i := 0
			for i < len(others) && others[i].kind != q.kind {
				i++
			}
			if i == len(others) {
				others = append(others, q)
			} else {
				others[i] = q
			}
		case merged == nil:
			merged = q.change
		default:
			// Each update merged into another is one the page is
			// not sent on its own.
			sub.stats.coalesced.Add(uint64(q.change.updates))
			merged = merged.mergedWith(q.change)
		}
	}
	sub.queue = sub.queue[:0]
	if merged != nil {
		sub.queue = append(sub.queue, queued{change: merged})
	}
	sub.queue = append(sub.queue, others...)
}

// pendingEntries is how many transcript entries the page has to be sent:
// those from the last update that clears the transcript on.
func (sub *subscriber) pendingEntries() int {
	n := 0
	for _, q := range sub.queue {
		if q.change == nil {
			continue
		}
		if q.change.clear {
			n = 0
		}
		n += len(q.change.entries)
	}
	return n
}

// lead puts m before everything queued: a snapshot drawn after the page
// subscribed, which the updates published meanwhile apply on top of.
func (sub *subscriber) lead(m queued) {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	if sub.gone {
		return
	}
	sub.queue = append([]queued{m}, sub.queue...)
	select {
	case sub.ready <- struct{}{}:
	default:
	}
}

// take empties the queue for the page's writer.
func (sub *subscriber) take() []queued {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	q := sub.queue
	sub.queue = nil
	sub.behind = 0
	return q
}

// subscribe registers a page that follows the cluster from now on (an API
// client, an old page); the caller must unsubscribe when it leaves.
func (s *liveSession) subscribe(closeSlow func()) *subscriber {
	return s.subscribeAs(closeSlow, viewer{})
}

// subscribeAs is subscribe for a page whose viewer is known.
func (s *liveSession) subscribeAs(closeSlow func(), v viewer) *subscriber {
	sub := newSubscriber(closeSlow, &s.updateStats)
	sub.viewer = v
	s.mu.Lock()
	if s.closedLocked() {
		// The cluster went between the page's lookup and now.
		s.mu.Unlock()
		go closeSlow()
		return sub
	}
	s.subscribers = append(s.subscribers, sub)
	// Queued before any later change: a page connecting mid-lesson
	// catches up, then follows the room.
	draft := s.catchUp(sub)
	s.joined(sub)
	s.mu.Unlock()
	if draft != nil {
		s.sendSnapshot(sub, draft)
	}
	return sub
}

// resume registers a page that applied the stream up to id since (0: a
// page just loaded, which has applied nothing). It is sent what it missed
// if the ring still holds all of it, merged into one update, else a
// snapshot; then the real-time driver's state and the lesson status, which
// the ring does not keep. Either
// way it never shows a gap: the first update it gets applies on top of
// what it has.
func (s *liveSession) resume(closeSlow func(), since uint64) *subscriber {
	return s.resumeAs(closeSlow, since, viewer{})
}

// resumeAs is resume for a page whose viewer is known.
func (s *liveSession) resumeAs(closeSlow func(), since uint64, v viewer) *subscriber {
	sub := newSubscriber(closeSlow, &s.updateStats)
	sub.viewer = v
	if draft := s.resumeLocked(sub, since); draft != nil {
		s.sendSnapshot(sub, draft)
	}
	return sub
}

// resumeLocked is resume's part under s.mu: it subscribes sub and queues
// what the ring replays, or returns the snapshot to draw once s.mu is
// released (nil: none).
func (s *liveSession) resumeLocked(sub *subscriber, since uint64) *snapshotDraft {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closedLocked() {
		go sub.closeSlow()
		return nil
	}
	s.subscribers = append(s.subscribers, sub)
	missed, ok := s.updates.since(since)
	if since == 0 {
		ok = false
	}
	var draft *snapshotDraft
	switch {
	case ok:
		s.updateStats.replayed.Add(1)
		if missed != nil {
			sub.enqueue(queued{change: missed})
		}
	default:
		d, err := s.snapshotDraft()
		if err != nil {
			s.logger.Error("rendering a snapshot for a page", "error", err)
			go sub.closeSlow()
			return nil
		}
		s.updateStats.snapshots.Add(1)
		draft = d
	}
	s.tellRealtime(sub)
	if s.lesson != nil || since != 0 {
		// A returning page may have missed its lesson closing.
		s.send(sub, s.lessonMessage(""))
	}
	s.joined(sub)
	return draft
}

// sendSnapshot draws a snapshot without s.mu and puts it first in sub's
// queue, before the updates published while it was drawn. The page's
// writer has not started yet (resume and subscribe return first), so the
// page is sent nothing before it.
func (s *liveSession) sendSnapshot(sub *subscriber, d *snapshotDraft) {
	if s.drawingSnapshot != nil {
		s.drawingSnapshot()
	}
	snap, err := d.render(context.Background())
	if err != nil {
		s.logger.Error("rendering a snapshot for a page", "error", err)
		go sub.closeSlow()
		return
	}
	sub.lead(queued{change: snap})
}

func (s *liveSession) unsubscribe(sub *subscriber) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, x := range s.subscribers {
		if x == sub {
			s.subscribers = append(s.subscribers[:i], s.subscribers[i+1:]...)
			s.left(sub)
			return
		}
	}
}

// publish hands a message that is not an update (a lesson's status, the
// real-time driver's state) to every subscriber without ever blocking the
// engine: updates go through publishView. Called with s.mu held.
func (s *liveSession) publish(msg []byte) {
	kind := messageKind(msg)
	for _, sub := range s.subscribers {
		sub.enqueue(queued{msg: msg, kind: kind})
	}
}

// publishView publishes the view as it is now with the transcript entries
// (clear: replacing the page's transcript), with s.mu held. Every fragment
// goes as it is now, the paced ones included: only a quiet real-time
// tick's update holds some back (pacing.go).
func (s *liveSession) publishView(entries []web.Entry, clear bool) error {
	c, err := s.renderUpdate(entries, clear)
	if err != nil {
		return err
	}
	s.updates.pace.syncedAt = s.wallNow()
	s.publishUpdate(c)
	return nil
}

// publishUpdate hands a published update (nil: nothing changed) to every
// subscriber, with s.mu held.
func (s *liveSession) publishUpdate(c *viewChange) {
	if c == nil {
		return
	}
	s.updateStats.published.Add(1)
	if c.view != "" {
		s.updateStats.fullViews.Add(1)
	} else {
		s.updateStats.fragmented.Add(1)
	}
	for _, sub := range s.subscribers {
		sub.enqueue(queued{change: c})
	}
}

// renderEntries draws transcript entries.
func renderEntries(ctx context.Context, entries []web.Entry) ([]string, error) {
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		html, err := web.RenderString(ctx, web.TranscriptEntry(e))
		if err != nil {
			return nil, err
		}
		out = append(out, html)
	}
	return out, nil
}

// tell sends one page an entry that is not part of the shared history (a
// refusal of that page's command), in order with its other updates.
func (s *liveSession) tell(sub *subscriber, e web.Entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tellLocked(sub, e)
}

// tellLocked is tell with s.mu held. The entry carries the id of the last
// update: it changes nothing a returning page would have to be replayed.
func (s *liveSession) tellLocked(sub *subscriber, e web.Entry) {
	html, err := renderEntries(context.Background(), []web.Entry{e})
	if err != nil {
		return
	}
	sub.enqueue(queued{change: &viewChange{id: s.updates.lastID(), at: s.updates.clock().UnixMilli(), entries: html, private: true}})
}

// send queues a message that is not an update for one page, with s.mu
// held, never blocking.
func (s *liveSession) send(sub *subscriber, msg []byte) {
	sub.enqueue(queued{msg: msg, kind: messageKind(msg)})
}

// closeAll disconnects every subscriber, for server shutdown.
func (s *liveSession) closeAll() {
	s.mu.Lock()
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	subs := append([]*subscriber(nil), s.subscribers...)
	s.mu.Unlock()
	// Not one after the other: a websocket's Close waits up to 5 s for a
	// sleeping laptop's answer, and a shutdown must not wait for each.
	// Nothing waits for them: the session takes no command once closed.
	for _, sub := range subs {
		go sub.closeSlow()
	}
}

// closedLocked reports whether closeAll ran (the cluster was removed or
// the server is shutting down), with s.mu held.
func (s *liveSession) closedLocked() bool {
	select {
	case <-s.stop:
		return true
	default:
		return false
	}
}
