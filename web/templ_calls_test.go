package web

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// strayCall is a component call templ left as text: written right after
// an entity such as &#32; on the same line, `@T("a", "b")` is not a call
// but characters, and the page shows them to the learner.
var strayCall = regexp.MustCompile(`@[A-Za-z]+\(`)

// TestNoComponentCallDrawnAsText reads the generated code's HTML literals.
func TestNoComponentCallDrawnAsText(t *testing.T) {
	files, err := filepath.Glob("*_templ.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no generated files: %v", err)
	}
	literal := regexp.MustCompile(`WriteString\(templ_7745c5c3_Buffer, \d+, "((?:[^"\\]|\\.)*)"\)`)
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range literal.FindAllSubmatch(src, -1) {
			if call := strayCall.Find(m[1]); call != nil {
				t.Errorf("%s: the page would show %q as text: put the call on a line of its own in the .templ", f, m[1])
			}
		}
	}
}
