package main

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/lab"
	"github.com/loglab/loglab/engine/view"
	"github.com/loglab/loglab/server"
)

const docPath = "../../docs/lab-language.md"

// The committed page's reference is what the commands generate: a command
// added, renamed or re-described without `go generate ./internal/labdoc`
// fails here, so the page cannot fall behind `help`.
func TestLabLanguageReferenceIsFresh(t *testing.T) {
	old, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	want, err := withReference(string(old), lab.Commands(), server.NativeCommands())
	if err != nil {
		t.Fatal(err)
	}
	if string(old) != want {
		t.Errorf("%s is stale: run `go generate ./internal/labdoc` and commit it\n%s", docPath, firstDifference(string(old), want))
	}
	// Every command is in it, usage and all (the escaping kept each one).
	for _, c := range append(lab.Commands(), server.NativeCommands()...) {
		if !strings.Contains(want, "| "+codeSpan(c.Usage)+" |") {
			t.Errorf("command %q: its usage is not a row of the reference", c.Name)
		}
	}
}

// The hand-written prose names commands in bold (**`show log`**); each
// must be a command, so a renamed or removed one cannot linger there.
func TestLabLanguageProseNamesCommands(t *testing.T) {
	page, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, c := range append(lab.Commands(), server.NativeCommands()...) {
		names[c.Name] = true
	}
	bold := regexp.MustCompile("\\*\\*`([^`]+)`\\*\\*")
	found := 0
	for _, m := range bold.FindAllStringSubmatch(string(page), -1) {
		found++
		if !names[m[1]] {
			t.Errorf("%s names **`%s`**, which is no command (help lists every command)", docPath, m[1])
		}
	}
	if found == 0 {
		t.Errorf("%s names no command in bold: the test reads nothing", docPath)
	}
}

func TestReferenceEscapesMarkdown(t *testing.T) {
	got := reference([]view.CommandHelp{{
		Name:    "show log",
		Usage:   "show log T [a|b]",
		Summary: "prints __consumer_offsets, `x|y` and *this* <b>",
	}}, nil)
	want := "| `show log T [a\\|b]` | prints \\_\\_consumer\\_offsets, `x\\|y` and \\*this\\* \\<b\\> |"
	if !strings.Contains(got, want) {
		t.Errorf("reference =\n%s\nwant a row\n%s", got, want)
	}
	if _, err := withReference("no markers\n", nil, nil); err == nil {
		t.Error("a page without markers: no error")
	}
}

// firstDifference shows the first line where the committed page and the
// generated one part.
func firstDifference(old, want string) string {
	a, b := strings.Split(old, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(a) || i < len(b); i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return "line " + strconv.Itoa(i+1) + ":\n  committed: " + x + "\n  generated: " + y
		}
	}
	return ""
}
