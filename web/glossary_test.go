package web

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/loglab/loglab/lessons"
)

// TestChromeFollowsTheGlossary holds the chrome's Chinese to the lessons'
// glossary (lessons/glossary.tsv): a page says "分区" where its lesson does,
// and never "消费延迟" for lag or "压缩 topic" for a compacted topic. The
// chrome's Chinese lives in string literals (web.T's second argument in the
// templ files and Go code, T(…) in the page scripts), so every literal
// holding a Chinese character in web/ and static/ is checked.
func TestChromeFollowsTheGlossary(t *testing.T) {
	g, err := lessons.LoadGlossary()
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, pattern := range []string{"*.templ", "*.go", "../static/*.js"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || strings.HasSuffix(f, "_templ.go") || strings.HasSuffix(f, "wasm_exec.js") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, lit := range chineseLiterals(string(src)) {
			checked++
			for _, v := range g.Violations(lit.text) {
				t.Errorf("%s:%d: %q: %v", f, lit.line, lit.text, v)
			}
		}
	}
	if checked < 200 {
		t.Fatalf("only %d Chinese strings found in the chrome: the scan is broken", checked)
	}
}

type literal struct {
	text string
	line int
}

var (
	stringLiteral = regexp.MustCompile("\"(?:[^\"\\\\\\n]|\\\\.)*\"|`[^`]*`")
	hanCharacter  = regexp.MustCompile(`\p{Han}`)
	interpolation = regexp.MustCompile(`\$\{[^}]*\}`)
	asciiQuoted   = regexp.MustCompile(`\\?"[^"\p{Han}]*\\?"`)
)

// chineseLiterals are src's quoted strings holding a Chinese character.
func chineseLiterals(src string) []literal {
	var out []literal
	for _, loc := range stringLiteral.FindAllStringIndex(src, -1) {
		text := src[loc[0]+1 : loc[1]-1]
		// A script's template literal holds markup: its attributes'
		// quotes and ${…} are code, not Chinese text.
		text = interpolation.ReplaceAllString(text, " ")
		text = asciiQuoted.ReplaceAllString(text, " ")
		if hanCharacter.MatchString(text) {
			out = append(out, literal{text: text, line: 1 + strings.Count(src[:loc[0]], "\n")})
		}
	}
	return out
}
