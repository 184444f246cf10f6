package server

import (
	"strings"
	"testing"
)

// firstChange is the update a new page is sent first: its snapshot.
func firstChange(t *testing.T, sub *subscriber) *viewChange {
	t.Helper()
	q := sub.take()
	if len(q) == 0 || q[0].change == nil || !q[0].change.clear {
		t.Fatalf("the page's first message is not a snapshot: %d queued", len(q))
	}
	return q[0].change
}

// A room reconnecting at once (or a page looping with ?since=0) drew one
// snapshot per connection: the whole view and up to 200 entries each
// time, the CPU the instructor's commands needed. Pages connecting between
// two updates now share one drawing; the next update draws a new one.
func TestPagesConnectingBetweenTwoUpdatesShareOneSnapshot(t *testing.T) {
	s := quietSession(t)
	s.run("produce orders key=k value=first")
	a := firstChange(t, s.resume(func() {}, 0))
	b := firstChange(t, s.resume(func() {}, 0))
	if a != b {
		t.Fatal("two pages connecting between the same two updates were each drawn a snapshot")
	}
	if !strings.Contains(a.entries[len(a.entries)-1], "value=first") {
		t.Fatalf("the snapshot lacks the last command: %.200q", a.entries[len(a.entries)-1])
	}

	s.run("produce orders key=k value=second")
	c := firstChange(t, s.resume(func() {}, 0))
	if c == a {
		t.Fatal("a page connecting after an update was sent the snapshot from before it")
	}
	if len(c.entries) != len(a.entries)+1 || !strings.Contains(c.entries[len(c.entries)-1], "value=second") || c.id <= a.id {
		t.Fatalf("the new snapshot does not hold the new command: %d entries (was %d), id %d (was %d)", len(c.entries), len(a.entries), c.id, a.id)
	}
}
