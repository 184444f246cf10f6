package web

import (
	"reflect"

	"github.com/loglab/loglab/engine/view"
)

// RenderCache keeps a view's fragments as last drawn, so that drawing the
// next view draws again only what changed. A partition is a pure drawing
// of its Inputs (the partition and the members owning it): when those are
// equal to the ones it was drawn from, its HTML is the same, and comparing
// them costs a fraction of drawing 20 records with their replicas. A topic
// whose shell and parts are all as they were keeps its HTML too. A tick
// that moves the clock but no partition draws none of them: in the browser
// lab, where drawing runs on the page's one thread, that was most of a
// play step's time.
//
// The zero value is empty and ready; a nil *RenderCache caches nothing.
// It is not safe for concurrent use (a session draws one view at a time).
type RenderCache struct {
	last map[string]cachedFragment // the previous drawing's fragments
	next map[string]cachedFragment // this drawing's, as they are drawn
}

type cachedFragment struct {
	inputs any
	drawn  RenderedFragment
}

// partitionInputs are what PartitionLog draws from.
type partitionInputs struct {
	Partition view.Partition
	Owners    []partitionOwner
}

func (c *RenderCache) begin() {
	if c != nil {
		c.next = make(map[string]cachedFragment, len(c.last))
	}
}

// end makes this drawing the one the next compares with: fragments no
// longer drawn are dropped.
func (c *RenderCache) end() {
	if c != nil {
		c.last, c.next = c.next, nil
	}
}

// forget empties the cache (a drawing failed half way).
func (c *RenderCache) forget() {
	if c != nil {
		c.last, c.next = nil, nil
	}
}

// lookup is f as drawn last time, when f has inputs equal to that
// drawing's.
func (c *RenderCache) lookup(f Fragment) (RenderedFragment, bool) {
	if c == nil || f.Inputs == nil {
		return RenderedFragment{}, false
	}
	was, ok := c.last[f.Key]
	if !ok || was.inputs == nil || !reflect.DeepEqual(was.inputs, f.Inputs) {
		return RenderedFragment{}, false
	}
	c.next[f.Key] = was
	return was.drawn, true
}

// previous is the fragment under key as drawn last time.
func (c *RenderCache) previous(key string) (RenderedFragment, bool) {
	if c == nil {
		return RenderedFragment{}, false
	}
	was, ok := c.last[key]
	return was.drawn, ok
}

func (c *RenderCache) keep(f Fragment, r RenderedFragment) {
	if c != nil {
		c.next[f.Key] = cachedFragment{inputs: f.Inputs, drawn: r}
	}
}
