package main

import (
	"bytes"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/loglab/loglab/engine/lab"
	"github.com/loglab/loglab/web"
)

// page is what a page's applyUpdate does with a session's drawings, in
// HTML: the whole view replaces the page's, then each fragment replaces
// the element carrying its data-fragment key.
type page struct {
	t    *testing.T
	view *html.Node
}

func (p *page) apply(d drawing) {
	p.t.Helper()
	if d.View != "" {
		p.view = parseOne(p.t, d.View)
	}
	for _, f := range d.Fragments {
		if p.view == nil {
			p.t.Fatalf("fragment %s before any whole view", f.Key)
		}
		old := findFragment(p.view, f.Key)
		if old == nil {
			p.t.Fatalf("fragment %s has no place on the page", f.Key)
		}
		old.Parent.InsertBefore(parseOne(p.t, f.HTML), old)
		old.Parent.RemoveChild(old)
	}
}

func (p *page) html() string {
	var b bytes.Buffer
	if err := html.Render(&b, p.view); err != nil {
		p.t.Fatal(err)
	}
	return b.String()
}

func parseOne(t *testing.T, s string) *html.Node {
	t.Helper()
	ctx := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	nodes, err := html.ParseFragment(strings.NewReader(s), ctx)
	if err != nil || len(nodes) != 1 {
		t.Fatalf("not one element (%v): %.200s", err, s)
	}
	return nodes[0]
}

func findFragment(n *html.Node, key string) *html.Node {
	for _, a := range n.Attr {
		if a.Key == "data-fragment" && a.Val == key {
			return n
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := findFragment(c, key); f != nil {
			return f
		}
	}
	return nil
}

// A command sends the fragments that changed, not the whole view, and a
// page applying them shows what a whole view would: the whole view only
// when the panels shown changed (a first cluster, a new topic).
func TestSessionSendsTheFragmentsThatChanged(t *testing.T) {
	s := newSession()
	t.Cleanup(func() { s.lab.Close() })
	p := &page{t: t}
	steps := append(strings.Split(lab.StarterScript, "\n"),
		"produce orders key=a value=hello partition=2", "tick 100ms", "topic create more partitions=2 rf=3", "produce more key=b value=x", "frobnicate")
	for _, line := range steps {
		before := s.shown
		u := s.run(line)
		p.apply(u.drawing)
		if p.html() != render(t, parseOne(t, s.renderViewOf())) {
			t.Fatalf("after %q the page differs from the whole view", line)
		}
		switch {
		case line == "produce orders key=a value=hello partition=2":
			if u.View != "" || !hasFragment(u.Fragments, "topic/orders/2", "hello") || hasFragment(u.Fragments, "topic/orders/0", "") {
				t.Fatalf("a produce to orders/2 sent view %d bytes, fragments %v", len(u.View), keys(u.Fragments))
			}
		case strings.HasPrefix(line, "topic create"):
			if u.View == "" {
				t.Fatal("a new topic's panel came as fragments, not the whole view")
			}
		case before != nil && u.View != "" && !strings.HasPrefix(line, "cluster") && !strings.Contains(lab.StarterScript, line):
			t.Fatalf("%q sent the whole view, with the same panels shown", line)
		}
	}
}

// renderViewOf is the whole view now, drawn apart from the page's (the
// session's drawing is kept).
func (s *session) renderViewOf() string {
	shown := s.shown
	defer func() { s.shown = shown }()
	return s.renderView()
}

func hasFragment(fs []web.FragmentChange, key, text string) bool {
	for _, f := range fs {
		if f.Key == key && strings.Contains(f.HTML, text) {
			return true
		}
	}
	return false
}

func keys(fs []web.FragmentChange) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Key)
	}
	return out
}

// A command with another waiting behind it is not drawn: the next one
// draws what both changed.
func TestSessionLeavesTheDrawingToTheLastQueuedCommand(t *testing.T) {
	s := newSession()
	t.Cleanup(func() { s.lab.Close() })
	p := &page{t: t}
	for _, line := range strings.Split(lab.StarterScript, "\n") {
		p.apply(s.run(line).drawing)
	}
	more := true
	s.queued = func() bool { return more }
	u := s.run("produce orders key=a value=first partition=0")
	if !u.OK || u.View != "" || len(u.Fragments) > 0 || !strings.Contains(u.Entry, "first") {
		t.Fatalf("a command with another queued: ok=%v, view %d bytes, fragments %v, entry %.100s", u.OK, len(u.View), keys(u.Fragments), u.Entry)
	}
	more = false
	u = s.run("produce orders key=b value=second partition=1")
	if !hasFragment(u.Fragments, "topic/orders/0", "first") || !hasFragment(u.Fragments, "topic/orders/1", "second") {
		t.Fatalf("the last command did not draw both changes: %v", keys(u.Fragments))
	}
	p.apply(u.drawing)
	if want := parseOne(t, s.renderViewOf()); p.html() != render(t, want) {
		t.Fatal("the page differs from the whole view")
	}
}

func render(t *testing.T, n *html.Node) string {
	t.Helper()
	var b bytes.Buffer
	if err := html.Render(&b, n); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
