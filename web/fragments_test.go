package web

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/loglab/loglab/engine/view"
)

// fragmentViews are views drawing every kind of fragment: no cluster, no
// topics, violations, groups, transactions, the two inspectors.
func fragmentViews() map[string]view.Cluster {
	withLookup := failover()
	withLookup.Inspector.Lookup = &view.LookupTrace{Partition: "orders/0", Target: 1}
	return map[string]view.Cluster{
		"no cluster":    {},
		"no topics":     {Exists: true, Brokers: 1, Controllers: 1, Elapsed: "0s"},
		"failover":      failover(),
		"lookup":        withLookup,
		"worst":         worstView(),
		"groups":        twoGroups(),
		"restart limbo": restartLimbo(),
	}
}

// The whole view is its fragments joined, in order, whichever way it is
// drawn: a page that swaps fragments by key ends up with the bytes a page
// given the whole view has.
func TestClusterViewIsItsFragmentsInOrder(t *testing.T) {
	ctx := context.Background()
	for name, c := range fragmentViews() {
		whole, err := RenderString(ctx, ClusterView(c))
		if err != nil {
			t.Fatal(err)
		}
		fs, err := RenderFragments(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		joined, err := RenderString(ctx, RenderedView(fs))
		if err != nil {
			t.Fatal(err)
		}
		if joined != whole {
			t.Errorf("%s: the fragments joined differ from ClusterView:\n%.400s\n---\n%.400s", name, joined, whole)
		}
		seen := map[string]bool{}
		for _, f := range fs {
			if seen[f.Key] {
				t.Errorf("%s: two fragments keyed %q", name, f.Key)
			}
			seen[f.Key] = true
			root, err := singleRoot(f.HTML)
			if err != nil {
				t.Errorf("%s: fragment %s: %v", name, f.Key, err)
				continue
			}
			if got := attr(root, "data-fragment"); got != f.Key {
				t.Errorf("%s: fragment %s's root carries data-fragment=%q", name, f.Key, got)
			}
			// A topic's partitions are fragments inside it: each one
			// element keyed under the topic, and the topic without them
			// is its Shell.
			shell := f.HTML
			for _, p := range f.Parts {
				root, err := singleRoot(p.HTML)
				if err != nil || attr(root, "data-fragment") != p.Key || !strings.HasPrefix(p.Key, f.Key+"/") {
					t.Errorf("%s: part %s of %s: not one element keyed so (%v)", name, p.Key, f.Key, err)
				}
				if !strings.Contains(shell, p.HTML) {
					t.Errorf("%s: part %s is not inside %s", name, p.Key, f.Key)
				}
				shell = strings.Replace(shell, p.HTML, "", 1)
			}
			if f.Shell != "" && shell != f.Shell || f.Shell == "" && len(f.Parts) > 0 {
				t.Errorf("%s: fragment %s's shell is not its HTML without its parts", name, f.Key)
			}
		}
	}
}

// Each panel is its own fragment, present only when it draws something,
// and each topic is one.
func TestFragmentKeysFollowTheView(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		c    view.Cluster
		want string
	}{
		{"no cluster", view.Cluster{}, "no-cluster"},
		{"no topics", view.Cluster{Exists: true, Brokers: 1, Controllers: 1}, "summary controls no-topics network quorum"},
		{"failover", failover(), "summary controls violations topic/orders network quorum"},
		{"groups", twoGroups(), "summary controls violations topic/__consumer_offsets topic/orders network quorum groups"},
	} {
		fs, err := RenderFragments(ctx, tc.c)
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, f := range fs {
			keys = append(keys, f.Key)
		}
		if got := strings.Join(keys, " "); got != tc.want {
			t.Errorf("%s: keys %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A component that draws text rather than one element cannot be a
// fragment: its key would have nothing to sit on.
func TestKeyedRefusesAComponentWithoutARootElement(t *testing.T) {
	f := keyed("bad", textComponent("just text"))
	if _, err := RenderString(context.Background(), f.Component); err == nil {
		t.Fatal("a fragment of bare text was drawn")
	}
}

type textComponent string

func (c textComponent) Render(_ context.Context, w io.Writer) error {
	_, err := io.WriteString(w, string(c))
	return err
}

// singleRoot parses a fragment and returns its root's start tag, failing
// unless the fragment is exactly one element.
func singleRoot(fragment string) (html.Token, error) {
	z := html.NewTokenizer(strings.NewReader(fragment))
	var root html.Token
	depth, roots := 0, 0
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if z.Err() != io.EOF {
				return root, z.Err()
			}
			if roots != 1 || depth != 0 {
				return root, errors.New("not exactly one element")
			}
			return root, nil
		case html.TextToken:
			if depth == 0 && strings.TrimSpace(string(z.Text())) != "" {
				return root, errors.New("text outside the root element")
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			if depth == 0 {
				roots++
				root = tok
			}
			if tt == html.StartTagToken && !voidElement(tok.Data) {
				depth++
			}
		case html.EndTagToken:
			depth--
		}
	}
}

func voidElement(name string) bool {
	switch name {
	case "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr":
		return true
	}
	return false
}

func attr(tok html.Token, name string) string {
	for _, a := range tok.Attr {
		if a.Key == name {
			return a.Val
		}
	}
	return ""
}
