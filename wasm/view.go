package main

import (
	"context"

	"github.com/loglab/loglab/web"
)

// What the page's cluster view shows, and what a command sends it: the
// fragments that changed since the last drawing (web.ChangedFragments),
// as the live server sends them, rather than the whole view. The whole
// view of a 3-broker, 12-partition cluster is about 200 KB of HTML; a tick
// changes the clock, a few partitions and the metrics, and morphing the
// whole view into the page each time was what held play to a few frames
// a second.

// drawing is one update's view: the whole of it (View) or its changed
// fragments, applied in order after it.
type drawing struct {
	View      string
	Fragments []web.FragmentChange
}

// drawChanges draws the lab on screen as the changes to what the page
// shows: its changed fragments, or the whole view when the panels shown
// changed or the page's drawing is not known. It never fails short of a
// rendering bug, which it returns with the page's drawing forgotten (the
// next one is whole).
func (s *session) drawChanges() (drawing, error) {
	frags, err := s.renderFragments()
	if err != nil {
		s.shown = nil
		return drawing{}, err
	}
	changed, ok := web.ChangedFragments(s.shown, frags)
	if !ok {
		return s.drawWhole(frags)
	}
	s.shown = frags
	return drawing{Fragments: changed}, nil
}

// drawView draws the whole view: a move in time, a lesson's rebuild, a
// page that lost track of a fragment. Later commands send what changed
// from it.
func (s *session) drawView() (drawing, error) {
	frags, err := s.renderFragments()
	if err != nil {
		s.shown = nil
		return drawing{}, err
	}
	return s.drawWhole(frags)
}

// renderFragments draws the lab on screen's fragments, paced as its
// simulations are (pacer): drawing a 12-partition cluster's view takes
// several times the pacer's budget in WASM, and held in one piece it was
// most of a long frame at each play step. The partitions that did not
// change since the last drawing are not drawn again (web.RenderCache).
func (s *session) renderFragments() ([]web.RenderedFragment, error) {
	return web.RenderFragmentsPaced(context.Background(), s.current().View(), s.pace(), &s.drawn)
}

func (s *session) drawWhole(frags []web.RenderedFragment) (drawing, error) {
	view, err := web.RenderString(context.Background(), web.RenderedView(frags))
	if err != nil {
		s.shown = nil
		return drawing{}, err
	}
	s.shown = frags
	return drawing{View: view}, nil
}

// renderView draws the whole view of the lab on screen; "" only on a
// rendering bug.
func (s *session) renderView() string {
	d, err := s.drawView()
	if err != nil {
		return ""
	}
	return d.View
}

// redraw is loglab.redraw(): the whole view, for a page that could not
// place a fragment it was sent (its drawing is not the session's).
func (s *session) redraw() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.renderView()
}
