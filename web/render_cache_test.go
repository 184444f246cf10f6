package web

import (
	"context"
	"testing"

	"github.com/loglab/loglab/engine/view"
)

// drawCounting draws c's fragments with cache, counting the fragments
// and parts actually drawn (pace is called after each).
func drawCounting(t *testing.T, c cacheView, cache *RenderCache) ([]RenderedFragment, int) {
	t.Helper()
	drawn := 0
	frags, err := RenderFragmentsPaced(context.Background(), c.v, func() { drawn++ }, cache)
	if err != nil {
		t.Fatal(err)
	}
	return frags, drawn
}

// A drawing that changes nothing draws no partition again, and gives the
// bytes a drawing without the cache gives; a partition that changed is
// drawn again, alone of its topic's, for every view that has partitions.
func TestRenderCacheDrawsOnlyChangedPartitions(t *testing.T) {
	for name, v := range fragmentViews() {
		t.Run(name, func(t *testing.T) {
			c := cacheView{v}
			parts := 0
			for _, t := range drawTopics(v) {
				parts += len(t.Partitions)
			}
			var cache RenderCache
			first, drawnFirst := drawCounting(t, c, &cache)
			again, drawnAgain := drawCounting(t, c, &cache)
			if drawnAgain != drawnFirst-parts {
				t.Errorf("the same view again: %d fragments and parts drawn, want %d (%d, less its %d partitions)", drawnAgain, drawnFirst-parts, drawnFirst, parts)
			}
			plain, err := RenderFragments(context.Background(), v)
			if err != nil {
				t.Fatal(err)
			}
			assertSameDrawing(t, "the same view again, from the cache", again, plain)
			assertSameDrawing(t, "the first drawing", first, plain)
			if parts == 0 {
				return
			}
			// One partition's high watermark moves: it alone is drawn again.
			changed := c.withHighWatermarkMoved()
			next, drawnNext := drawCounting(t, cacheView{changed}, &cache)
			if drawnNext != drawnAgain+1 {
				t.Errorf("one partition changed: %d fragments and parts drawn, want %d", drawnNext, drawnAgain+1)
			}
			plain, err = RenderFragments(context.Background(), changed)
			if err != nil {
				t.Fatal(err)
			}
			assertSameDrawing(t, "one partition changed", next, plain)
		})
	}
}

func assertSameDrawing(t *testing.T, what string, got, want []RenderedFragment) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d fragments, want %d", what, len(got), len(want))
	}
	for i := range want {
		if got[i].Key != want[i].Key || got[i].HTML != want[i].HTML || got[i].Shell != want[i].Shell || !sameParts(got[i].Parts, want[i].Parts) {
			t.Errorf("%s: fragment %s differs from a drawing without the cache", what, want[i].Key)
		}
	}
}

// cacheView is a view the test changes a copy of.
type cacheView struct{ v view.Cluster }

// withHighWatermarkMoved is the view with its first drawn partition's
// high watermark one lower (a copy: the original's slices are not shared).
func (c cacheView) withHighWatermarkMoved() view.Cluster {
	v := c.v
	v.Topics = append([]view.Topic(nil), v.Topics...)
	for i, d := range drawTopics(c.v) {
		if len(d.Partitions) == 0 {
			continue
		}
		ps := append([]view.Partition(nil), v.Topics[i].Partitions...)
		for j := range ps {
			if ps[j].Index == d.Partitions[0].Index {
				ps[j].HighWatermark--
			}
		}
		v.Topics[i].Partitions = ps
		return v
	}
	return v
}
