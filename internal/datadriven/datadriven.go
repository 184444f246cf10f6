// Package datadriven runs testdata files written in the lab's transcript
// format against a pure state machine: `> command args` lines, each
// followed by what the machine printed for it, compared byte for byte.
// `go test -rewrite` writes the machine's current output back into the
// files instead (the same flag engine/lab's transcripts use).
//
// A file holds cases. A case starts with a line `=== name` (the name is the
// subtest's, usually the Kafka test it mirrors) and runs against a fresh
// machine. Inside a case:
//
//	# a comment; kept as written on -rewrite
//	> join member=m1 legacy
//	the output of the command, one line or more
//
// Blank lines and comments are kept; every other line is output and
// belongs to the command above it. A command's output may not contain a
// blank line or a line starting with `#`, `>` or `===`, so a file always
// parses back into the same cases. The package reads files with os and is
// imported only by tests; it lives outside engine/, whose non-test code
// must not touch the file system.
package datadriven

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

var rewrite = flag.Bool("rewrite", false, "rewrite datadriven testdata with the machines' current output")

// Cmd is one `> name args` line. Arguments are `key=value` or bare words;
// a handler reads them with the accessors, and Run fails a command that
// carries an argument the handler never read (a typo would otherwise
// pass silently).
type Cmd struct {
	Name string
	Line string // the whole command, without "> "
	Pos  string // file:line
	args []arg
}

type arg struct {
	key, val string
	hasVal   bool
	used     bool
}

func parseCmd(line, pos string) *Cmd {
	fields := strings.Fields(line)
	c := &Cmd{Line: line, Pos: pos}
	if len(fields) == 0 {
		return c
	}
	c.Name = fields[0]
	for _, f := range fields[1:] {
		k, v, ok := strings.Cut(f, "=")
		c.args = append(c.args, arg{key: k, val: v, hasVal: ok})
	}
	return c
}

func (c *Cmd) find(key string) *arg {
	for i := range c.args {
		if c.args[i].key == key {
			c.args[i].used = true
			return &c.args[i]
		}
	}
	return nil
}

// Has reports a bare word (`legacy`) or a key given any value.
func (c *Cmd) Has(key string) bool { return c.find(key) != nil }

// Str is key's value, or def when the key is absent.
func (c *Cmd) Str(key, def string) string {
	if a := c.find(key); a != nil {
		return a.val
	}
	return def
}

// List is key's comma-separated value; nil when absent or empty.
func (c *Cmd) List(key string) []string {
	v := c.Str(key, "")
	if v == "" {
		return nil
	}
	return strings.Split(v, ",")
}

// Int is key's value as an integer, or def when absent.
func (c *Cmd) Int(t testing.TB, key string, def int64) int64 {
	t.Helper()
	a := c.find(key)
	if a == nil {
		return def
	}
	n, err := strconv.ParseInt(a.val, 10, 64)
	if err != nil {
		t.Fatalf("%s: %s=%q is not an integer", c.Pos, key, a.val)
	}
	return n
}

// Words are the bare words not yet read, in order; reading them marks
// them used.
func (c *Cmd) Words() []string {
	var out []string
	for i := range c.args {
		if !c.args[i].hasVal && !c.args[i].used {
			c.args[i].used = true
			out = append(out, c.args[i].key)
		}
	}
	return out
}

// Pairs are the key=value arguments not yet read, in order, as [key, value];
// reading them marks them used.
func (c *Cmd) Pairs() [][2]string {
	var out [][2]string
	for i := range c.args {
		if c.args[i].hasVal && !c.args[i].used {
			c.args[i].used = true
			out = append(out, [2]string{c.args[i].key, c.args[i].val})
		}
	}
	return out
}

func (c *Cmd) unused() []string {
	var out []string
	for _, a := range c.args {
		if !a.used {
			out = append(out, a.key)
		}
	}
	return out
}

// differs reports a case whose output is not the file's; a variable so
// that this package's own test can watch it.
var differs = func(t *testing.T, msg string) { t.Helper(); t.Error(msg) }

// Handler runs one command against a case's machine and returns what to
// print for it.
type Handler func(t *testing.T, c *Cmd) string

type item struct {
	verbatim string // a comment, a blank line or a case header
	cmd      *Cmd
	want     []string
}

type tcase struct {
	name  string
	pos   string
	items []item
}

func parse(t *testing.T, path, text string) (preamble []string, cases []*tcase) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	var cur *tcase
	for i, line := range lines {
		pos := fmt.Sprintf("%s:%d", path, i+1)
		switch {
		case strings.HasPrefix(line, "=== "):
			cur = &tcase{name: strings.TrimSpace(line[4:]), pos: pos}
			cases = append(cases, cur)
		case cur == nil:
			if line != "" && !strings.HasPrefix(line, "#") {
				t.Fatalf("%s: %q before the first `=== case`", pos, line)
			}
			preamble = append(preamble, line)
		case line == "" || strings.HasPrefix(line, "#"):
			cur.items = append(cur.items, item{verbatim: line})
		case strings.HasPrefix(line, ">"):
			cur.items = append(cur.items, item{cmd: parseCmd(strings.TrimSpace(line[1:]), pos)})
		default:
			last := len(cur.items) - 1
			if last < 0 || cur.items[last].cmd == nil {
				t.Fatalf("%s: output %q follows no command", pos, line)
			}
			cur.items[last].want = append(cur.items[last].want, line)
		}
	}
	return preamble, cases
}

func render(c *tcase, out func(item) []string) string {
	var b strings.Builder
	b.WriteString("=== " + c.name + "\n")
	for _, it := range c.items {
		if it.cmd == nil {
			b.WriteString(it.verbatim + "\n")
			continue
		}
		b.WriteString("> " + it.cmd.Line + "\n")
		for _, l := range out(it) {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// Run runs every case of the file at path, each as a subtest with a fresh
// Handler from newCase, and compares each case's output exactly; with
// -rewrite it writes the file back with the output the machines printed.
func Run(t *testing.T, path string, newCase func(t *testing.T) Handler) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	preamble, cases := parse(t, path, string(data))
	if len(cases) == 0 {
		t.Fatalf("%s: no `=== case` in the file", path)
	}
	seen := map[string]bool{}
	got := make([]string, len(cases))
	for i, c := range cases {
		if seen[c.name] {
			t.Fatalf("%s: case %q appears twice", c.pos, c.name)
		}
		seen[c.name] = true
		want := render(c, func(it item) []string { return it.want })
		got[i] = want // kept as it was if the case stops early
		t.Run(c.name, func(t *testing.T) {
			h := newCase(t)
			outs := map[*Cmd][]string{}
			for _, it := range c.items {
				if it.cmd == nil {
					continue
				}
				out := strings.TrimSuffix(h(t, it.cmd), "\n")
				if u := it.cmd.unused(); len(u) > 0 {
					t.Fatalf("%s: %s does not take %v", it.cmd.Pos, it.cmd.Name, u)
				}
				var lines []string
				if out != "" {
					lines = strings.Split(out, "\n")
				}
				for _, l := range lines {
					if l == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(l, ">") || strings.HasPrefix(l, "===") {
						t.Fatalf("%s: output line %q would not parse back (blank, or starts with #, > or ===)", it.cmd.Pos, l)
					}
				}
				outs[it.cmd] = lines
			}
			got[i] = render(c, func(it item) []string { return outs[it.cmd] })
			if !*rewrite && got[i] != want {
				differs(t, fmt.Sprintf("%s: output differs (run go test -rewrite after a deliberate change)\n--- want\n%s--- got\n%s", c.pos, want, got[i]))
			}
		})
	}
	if !*rewrite {
		return
	}
	var b strings.Builder
	for _, l := range preamble {
		b.WriteString(l + "\n")
	}
	for _, g := range got {
		b.WriteString(g)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
