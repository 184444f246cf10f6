package lessons

import (
	_ "embed"
	"fmt"
	"strings"
	"unicode/utf8"
)

// glossaryTSV is loglab's Chinese vocabulary for Kafka's terms (format in
// the file's header and README.md): which terms stay in English, which are
// translated and how, and the renderings no Chinese text may use.
//
//go:embed glossary.tsv
var glossaryTSV string

// Term is one concept of the glossary.
type Term struct {
	Line    int
	Concept string // as Kafka writes it
	// Zh is its one rendering in Chinese text; "=" keeps Kafka's term.
	Zh        string
	Forbidden []string // renderings no Chinese text may use outside code
	Allowed   []string // longer phrases holding a forbidden one that are right
	Why       string
}

// Glossary is the parsed glossary.tsv.
type Glossary []Term

// Violation is a forbidden rendering found in a text.
type Violation struct {
	Term  Term
	Found string // the forbidden rendering
	At    int    // its byte offset in the text
}

func (v Violation) String() string {
	use := v.Term.Zh
	if use == "=" {
		use = v.Term.Concept + " (kept in English)"
	}
	return fmt.Sprintf("%q for %s: write %s (glossary.tsv:%d)", v.Found, v.Term.Concept, use, v.Term.Line)
}

// LoadGlossary parses the embedded glossary.tsv. Other packages (the web
// chrome's tests) check their Chinese with it too.
func LoadGlossary() (Glossary, error) { return ParseGlossary(glossaryTSV) }

// ParseGlossary reads a glossary in glossary.tsv's format.
func ParseGlossary(src string) (Glossary, error) {
	var g Glossary
	for i, line := range strings.Split(src, "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 5 {
			return nil, fmt.Errorf("glossary.tsv:%d: %d columns, want 5 (concept, zh, forbidden, allowed, why)", i+1, len(f))
		}
		t := Term{Line: i + 1, Concept: f[0], Zh: f[1], Forbidden: splitBar(f[2]), Allowed: splitBar(f[3]), Why: f[4]}
		if t.Concept == "" || t.Zh == "" || t.Why == "" {
			return nil, fmt.Errorf("glossary.tsv:%d: a term needs its concept, its zh rendering (= to keep the English) and why", i+1)
		}
		for _, a := range t.Allowed {
			if !containsAny(a, t.Forbidden) && a != t.Concept {
				return nil, fmt.Errorf("glossary.tsv:%d: allowed %q holds none of the forbidden renderings", i+1, a)
			}
		}
		g = append(g, t)
	}
	return g, nil
}

func splitBar(s string) []string {
	var out []string
	for _, p := range strings.Split(s, " | ") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// Violations lists the forbidden renderings in a Chinese text, outside
// its `code` spans (config names, commands and error names stay as Kafka
// writes them), in text order per term.
func (g Glossary) Violations(zh string) []Violation {
	text := blankCode(zh)
	var out []Violation
	for _, t := range g {
		for _, f := range t.Forbidden {
			for from := 0; ; {
				i := strings.Index(text[from:], f)
				if i < 0 {
					break
				}
				at := from + i
				from = at + len(f)
				if isWord(f) && !wholeWord(text, at, len(f)) {
					continue
				}
				if insideAllowed(text, at, len(f), t.Allowed) {
					continue
				}
				out = append(out, Violation{Term: t, Found: f, At: at})
			}
		}
	}
	return out
}

// blankCode replaces the inside of `code` spans with blanks, keeping byte
// offsets.
func blankCode(s string) string {
	b := []byte(s)
	in := false
	for i, c := range b {
		switch {
		case c == '`':
			in = !in
		case in:
			b[i] = ' '
		}
	}
	return string(b)
}

// isWord: an ASCII rendering (partition) matches only as a whole word.
func isWord(s string) bool {
	for _, r := range s {
		if r >= utf8.RuneSelf || !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == ' ') {
			return false
		}
	}
	return true
}

// wholeWord: no letter, digit or name character (. _ - /) touches it, so
// partition.assignment.strategy and __cluster_metadata are not matched.
func wholeWord(s string, at, n int) bool {
	name := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-' || c == '/'
	}
	return (at == 0 || !name(s[at-1])) && (at+n == len(s) || !name(s[at+n]))
}

// insideAllowed: the match at [at, at+n) lies inside an occurrence of one
// of the allowed phrases.
func insideAllowed(s string, at, n int, allowed []string) bool {
	for _, a := range allowed {
		for from := max(0, at+n-len(a)); from <= at && from < len(s); {
			i := strings.Index(s[from:], a)
			if i < 0 {
				break
			}
			start := from + i
			if start > at {
				break
			}
			if start+len(a) >= at+n {
				return true
			}
			from = start + 1
		}
	}
	return false
}
