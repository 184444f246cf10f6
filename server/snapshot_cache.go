package server

import (
	"context"
	"sync"
)

// snapshotCache keeps the last snapshot drawn of a cluster's stream. A
// snapshot is the same for every page that connects between two updates,
// and drawing it (up to 200 transcript entries and the whole view, then
// its JSON) is the most expensive thing a page asks for: a room
// reconnecting at once after a Wi-Fi blip, or a page reconnecting in a
// loop with ?since=0, drew it once per connection and took the CPU the
// instructor's commands needed. The first page to ask draws it; those
// asking meanwhile wait for that drawing instead of drawing their own;
// later ones get it as it is, marshalled once (viewChange.message).
//
// Its key is the draft's last update id and transcript length: every
// change to the history or the view publishes an update (a new id), and
// the length tells a transcript cleared without a new update apart.
type snapshotCache struct {
	mu      sync.Mutex // held while drawing: one drawing at a time
	id      uint64
	entries int
	change  *viewChange
}

func (c *snapshotCache) get(ctx context.Context, d *snapshotDraft) (*viewChange, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.change != nil && c.id == d.id && c.entries == len(d.history) {
		return c.change, nil
	}
	change, err := d.draw(ctx)
	if err != nil {
		return nil, err
	}
	c.id, c.entries, c.change = d.id, len(d.history), change
	return change, nil
}
