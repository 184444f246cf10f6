package datadriven

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// counter is a tiny machine: `add n=N` adds and prints the total, `words`
// echoes its bare words.
func counter(t *testing.T) Handler {
	total := int64(0)
	return func(t *testing.T, c *Cmd) string {
		switch c.Name {
		case "add":
			total += c.Int(t, "n", 1)
			return "total " + strings.Repeat("|", int(total))
		case "words":
			return strings.Join(c.Words(), "\n")
		}
		t.Fatalf("unknown %s", c.Name)
		return ""
	}
}

const stale = `# preamble, kept

=== first
# a comment, kept
> add n=2
total 1
> words a b
a

=== second
> add
`

const fresh = `# preamble, kept

=== first
# a comment, kept
> add n=2
total ||
> words a b
a
b

=== second
> add
total |
`

func write(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "case.txt")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRewriteThenCompare: -rewrite writes each case's output in place,
// keeping comments, blank lines and the preamble, and each case runs on a
// fresh machine; the rewritten file then passes, and a stale one is
// reported, case by case.
func TestRewriteThenCompare(t *testing.T) {
	defer func(v bool) { *rewrite = v }(*rewrite)
	*rewrite = false
	var reported []string
	old := differs
	differs = func(_ *testing.T, msg string) { reported = append(reported, msg) }
	defer func() { differs = old }()

	path := write(t, stale)
	Run(t, path, counter)
	if len(reported) != 2 {
		t.Fatalf("a stale file gave %d reports, want one per case (2): %q", len(reported), reported)
	}

	reported = nil
	*rewrite = true
	Run(t, path, counter)
	*rewrite = false
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != fresh {
		t.Fatalf("rewritten file:\n%s\nwant:\n%s", got, fresh)
	}
	Run(t, path, counter)
	if len(reported) != 0 {
		t.Fatalf("the rewritten file does not pass: %q", reported)
	}
}

func TestParseArguments(t *testing.T) {
	c := parseCmd("join m1 legacy member=a protocols=range:t,rr empty=", "f:1")
	if c.Name != "join" || !c.Has("legacy") || c.Str("member", "") != "a" || c.Str("empty", "x") != "" || c.Str("absent", "d") != "d" {
		t.Fatalf("parsed %+v", c)
	}
	if l := c.List("protocols"); len(l) != 2 || l[1] != "rr" {
		t.Fatalf("list %q", l)
	}
	if w := c.Words(); len(w) != 1 || w[0] != "m1" {
		t.Fatalf("words %q (legacy was read by Has)", w)
	}
	if u := c.unused(); len(u) != 0 {
		t.Fatalf("unused %q", u)
	}
	if u := parseCmd("x typo=1", "f:1").unused(); len(u) != 1 || u[0] != "typo" {
		t.Fatalf("an argument nobody read is not reported: %q", u)
	}
}
