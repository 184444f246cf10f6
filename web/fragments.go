package web

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/a-h/templ"

	"github.com/loglab/loglab/engine/view"
)

// Fragment is one part of the cluster view a page can replace on its own:
// a command usually changes a few of them (the clock, the network, one
// topic), so the live server sends those rather than the whole view. Its
// Component draws one element carrying data-fragment="Key", or nothing
// when the panel has nothing to show (no groups yet, say).
type Fragment struct {
	Key       string
	Component templ.Component
	// Inputs, when set, are all Component draws from (a partition and its
	// owners): a RenderCache holding a drawing of equal Inputs under the
	// same key gives that drawing instead of drawing it again.
	Inputs any
	// Parts are fragments inside this one (a topic's partitions), each
	// keyed too; withParts draws this fragment around its parts given as
	// components, as Component does with Parts'.
	Parts     []Fragment
	withParts func(parts []templ.Component) templ.Component
}

// RenderedFragment is a Fragment drawn: HTML is one element, never empty.
// A fragment with parts also has them drawn, and Shell: its HTML with no
// parts, which is all of it a change to some parts leaves alone.
type RenderedFragment struct {
	Key   string
	HTML  string
	Shell string
	Parts []RenderedFragment
}

// TopicFragmentKey is the key of a topic's fragment. Topic names are
// [a-zA-Z0-9._-], so the slash cannot make two topics' keys meet.
func TopicFragmentKey(topic string) string { return "topic/" + topic }

// partitionFragments are a topic's partitions drawn as fragments, keyed
// under the topic's key by partition index: "topic/orders/0".
func partitionFragments(topicKey string, d topicDrawing, owners map[string][]partitionOwner) []Fragment {
	fs := make([]Fragment, 0, len(d.Partitions))
	for _, p := range d.Partitions {
		f := keyed(topicKey+"/"+strconv.Itoa(p.Index), PartitionLog(p, owners[p.Name()]))
		f.Inputs = partitionInputs{Partition: p, Owners: owners[p.Name()]}
		fs = append(fs, f)
	}
	return fs
}

func partitionComponents(fs []Fragment) []templ.Component {
	cs := make([]templ.Component, len(fs))
	for i, f := range fs {
		cs[i] = f.Component
	}
	return cs
}

// ClusterFragments is the cluster view as its fragments, in the order
// ClusterView draws them. Each is a whole panel, not a smaller piece: the
// panels are what a command changes or leaves alone, and swapping a panel
// keeps every data-focus selector inside it working as before.
//
// The topics come first, then what `show batch` or `show lookup` opened:
// they are what most commands change and what a learner reads, so they
// are in sight without scrolling past the network and the quorum, which
// follow (and which a page lets the learner fold away).
func ClusterFragments(c view.Cluster) []Fragment {
	if !c.Exists {
		return []Fragment{keyed("no-cluster", noCluster())}
	}
	fs := []Fragment{
		keyed("summary", clusterSummary(c)),
		keyed("controls", ControlsBar(c)),
		keyed("violations", ViolationsPanel(c)),
	}
	fs = append(fs, topicFragments(c)...)
	// InspectorPanel draws two panels side by side: each is a fragment.
	if c.Inspector.Batch != nil {
		fs = append(fs, keyed("inspector/batch", BatchPanel(*c.Inspector.Batch)))
	}
	if c.Inspector.Lookup != nil {
		fs = append(fs, keyed("inspector/lookup", LookupPanel(*c.Inspector.Lookup)))
	}
	return append(fs,
		keyed("network", NetworkDiagram(c)),
		keyed("quorum", QuorumPanel(c)),
		keyed("groups", GroupsPanel(c)),
		keyed("transactions", TransactionsPanel(c)),
		keyed("side-effects", SideEffectsPanel(c)),
		// Metrics and charts come last: the panels a command changes (the
		// topics, what was opened) stay near the top.
		keyed("metrics", MetricsPanel(c)),
		keyed("charts", ChartsPanel(c)),
	)
}

// topicFragments are the topics, each a fragment with its partitions as
// parts, or the hint to create one.
func topicFragments(c view.Cluster) []Fragment {
	if len(c.Topics) == 0 {
		return []Fragment{keyed("no-topics", noTopics())}
	}
	var fs []Fragment
	drawings, owners := drawTopics(c), partitionOwners(c.Groups)
	seen := make(map[string]int, len(c.Topics))
	for i, t := range c.Topics {
		// A cluster's topic names are unique; a view made by hand (a
		// test's) may repeat one, and two fragments must never share a key.
		key := TopicFragmentKey(t.Name)
		if seen[key]++; seen[key] > 1 {
			key += "#" + strconv.Itoa(seen[key])
		}
		t, d := t, drawings[i]
		parts := partitionFragments(key, d, owners)
		f := keyed(key, topicLog(t, d, partitionComponents(parts)))
		f.Parts = parts
		f.withParts = func(cs []templ.Component) templ.Component { return keyed(key, topicLog(t, d, cs)).Component }
		fs = append(fs, f)
	}
	return fs
}

// RenderFragments draws c's fragments, leaving out those that draw
// nothing: the keys returned are the fragments a page shows.
func RenderFragments(ctx context.Context, c view.Cluster) ([]RenderedFragment, error) {
	return RenderFragmentsPaced(ctx, c, func() {}, nil)
}

// RenderFragmentsPaced is RenderFragments calling pace after each fragment
// and each part it draws, and taking from cache (when not nil) the
// fragments whose inputs did not change since it drew them. The browser
// lab draws on the page's one thread: the view of a 12-partition cluster
// takes tens of milliseconds to draw there, and pace lets it hand the
// thread back (a frame, a timer) between fragments rather than hold it
// all that time.
func RenderFragmentsPaced(ctx context.Context, c view.Cluster, pace func(), cache *RenderCache) ([]RenderedFragment, error) {
	var out []RenderedFragment
	cache.begin()
	for _, f := range ClusterFragments(c) {
		r, err := renderFragment(ctx, f, pace, cache)
		if err != nil {
			cache.forget()
			return nil, err
		}
		if r.HTML != "" {
			out = append(out, r)
		}
	}
	cache.end()
	return out, nil
}

// renderFragment draws f, and its parts each once: f is drawn around
// their HTML. A fragment whose inputs are in cache is not drawn again, and
// neither is one with parts when none of them and not its shell changed.
func renderFragment(ctx context.Context, f Fragment, pace func(), cache *RenderCache) (RenderedFragment, error) {
	if r, ok := cache.lookup(f); ok {
		return r, nil
	}
	defer pace()
	r := RenderedFragment{Key: f.Key}
	if f.withParts == nil {
		html, err := RenderString(ctx, f.Component)
		r.HTML = html
		cache.keep(f, r)
		return r, err
	}
	raws := make([]templ.Component, 0, len(f.Parts))
	for _, p := range f.Parts {
		part, err := renderFragment(ctx, p, pace, cache)
		if err != nil {
			return r, err
		}
		r.Parts = append(r.Parts, part)
		raws = append(raws, templ.Raw(part.HTML))
	}
	var err error
	if r.Shell, err = RenderString(ctx, f.withParts(nil)); err != nil {
		return r, err
	}
	if was, ok := cache.previous(f.Key); ok && was.Shell == r.Shell && sameParts(was.Parts, r.Parts) {
		// Nothing inside changed: the fragment is drawn as it was.
		r.HTML = was.HTML
	} else if r.HTML, err = RenderString(ctx, f.withParts(raws)); err != nil {
		return r, err
	}
	cache.keep(f, r)
	return r, nil
}

// sameParts: a and b are the same parts drawn the same.
func sameParts(a, b []RenderedFragment) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || a[i].HTML != b[i].HTML {
			return false
		}
	}
	return true
}

// keyed marks a component's root element with data-fragment="key". The
// attribute is added as the panel is drawn, not written into each panel's
// template: the panels stay usable on their own (lessons, tests) and a new
// panel cannot forget it. A component must draw one element or nothing.
func keyed(key string, c templ.Component) Fragment {
	return Fragment{Key: key, Component: templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		b := renderBuffer()
		defer releaseRenderBuffer(b)
		if err := c.Render(ctx, b); err != nil {
			return err
		}
		html := b.Bytes()
		if len(html) == 0 {
			return nil
		}
		at := startTagEnd(html)
		if at < 0 {
			return fmt.Errorf("fragment %s does not start with an element: %.40q", key, html)
		}
		if _, err := w.Write(html[:at]); err != nil {
			return err
		}
		if _, err := io.WriteString(w, ` data-fragment="`+templ.EscapeString(key)+`"`); err != nil {
			return err
		}
		_, err := w.Write(html[at:])
		return err
	})}
}

// startTagEnd is where html's first element's start tag ends (the index
// of its ">", or of the "/" of "/>"), or -1 when html does not start with
// an element. The attribute goes last, so the panel's own attributes keep
// their order (class first: tests and selectors read it so).
func startTagEnd(html []byte) int {
	if len(html) < 2 || html[0] != '<' || !isTagNameByte(html[1]) {
		return -1
	}
	var quote byte
	for i := 1; i < len(html); i++ {
		switch b := html[i]; {
		case quote != 0:
			if b == quote {
				quote = 0
			}
		case b == '"' || b == '\'':
			quote = b
		case b == '>':
			if html[i-1] == '/' {
				return i - 1
			}
			return i
		}
	}
	return -1
}

func isTagNameByte(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b == '-'
}

// FragmentChange is one fragment a page morphs in by its data-fragment
// key: the HTML of a fragment whose drawing changed.
type FragmentChange struct {
	Key  string `json:"key"`
	HTML string `json:"html"`
}

// ChangedFragments is what a page showing was must redraw to show now:
// the fragments whose HTML differs, in order, and of a fragment with
// parts whose shell did not change only the parts that did (one partition
// of a topic). ok is false when the fragments' keys differ (a topic or a
// panel appeared or went, or was is unknown: nil): the page needs the
// whole view then. The live server diffs its updates the same way.
func ChangedFragments(was, now []RenderedFragment) (changed []FragmentChange, ok bool) {
	if !SameFragmentKeys(was, now) {
		return nil, false
	}
	for i := range now {
		changed = AppendChangedFragment(changed, was[i], now[i])
	}
	return changed, true
}

// AppendChangedFragment appends what changed from was to now, two
// drawings of one fragment: nothing, the parts that changed when nothing
// else did (one partition of a topic), or the whole fragment.
func AppendChangedFragment(out []FragmentChange, was, now RenderedFragment) []FragmentChange {
	if now.HTML == was.HTML {
		return out
	}
	if len(now.Parts) > 0 && now.Shell == was.Shell && SameFragmentKeys(was.Parts, now.Parts) {
		for i, p := range now.Parts {
			out = AppendChangedFragment(out, was.Parts[i], p)
		}
		return out
	}
	return append(out, FragmentChange{Key: now.Key, HTML: now.HTML})
}

// SameFragmentKeys: a and b are the same fragments in the same order (a
// nil a is a view not known).
func SameFragmentKeys(a, b []RenderedFragment) bool {
	if a == nil || len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key {
			return false
		}
	}
	return true
}
