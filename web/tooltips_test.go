package web

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// sameInBothLanguages are the tooltips and placeholders whose text is the
// same in English and Chinese: a lab command, a config or a Kafka name,
// an id. They need no data-*-zh.
var sameInBothLanguages = map[string]bool{
	`"realtime on"`:             true, // the command the button runs
	`"realtime pause"`:          true,
	`"realtime resume"`:         true,
	`"realtime off"`:            true,
	`{ "realtime speed=" + x }`: true,
	`"tick 100ms"`:              true,
	`"transactional.id"`:        true, // a config name
	`{ m.MemberID }`:            true, // the member id in full
	`{ m.MBean }`:               true, // the metric's JMX name
	`{ n.ID + ": " + n.Kind }`:  true, // "c1: consumer"
	`{ n.ID + ": producer" }`:   true,
	// Kafka's names, which the Chinese keeps (lessons/glossary.tsv).
	`{ "high watermark " + strconv.FormatInt(p.HighWatermark, 10) }`:        true,
	`{ "log end offset " + strconv.FormatInt(p.LogEndOffset, 10) }`:         true,
	`{ "last stable offset " + strconv.FormatInt(p.LastStableOffset, 10) }`: true,
	`"KRaft controller quorum"`:                                             true,
	// An index entry, as kafka-dump-log prints it: a segment draws
	// hundreds, and their Chinese would only swap "position" for 位置.
	`{ fmt.Sprintf("index: offset %d → position %d", e.Offset, e.Position) }`: true,
}

var tipAttribute = regexp.MustCompile(`\s(title|placeholder|aria-label)=("[^"]*"|\{[^}]*\})`)

// TestTooltipsHaveChinese holds every title=, placeholder= and aria-label=
// in the templates to a Chinese counterpart (data-title-zh and alike,
// which static/lang.js swaps in when the page reads Chinese), unless the
// value already holds both ("lesson / 课程"): an attribute
// cannot hold web.T's two spans, and an English-only tooltip on a Chinese
// page is what issue 28 was about.
func TestTooltipsHaveChinese(t *testing.T) {
	files, err := filepath.Glob("*.templ")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, tag := range templStartTags(string(src)) {
			for _, m := range tipAttribute.FindAllStringSubmatch(tag.text, -1) {
				checked++
				attr, value := m[1], m[2]
				// "lesson / 课程" already reads in both languages.
				if sameInBothLanguages[value] || hanCharacter.MatchString(value) {
					continue
				}
				if !strings.Contains(tag.text, "data-"+attr+"-zh=") {
					t.Errorf("%s:%d: %s=%s has no data-%s-zh (or add it to sameInBothLanguages if it reads the same in Chinese)", f, tag.line, attr, value, attr)
				}
			}
		}
	}
	if checked < 80 {
		t.Fatalf("only %d titles and placeholders found in the templates: the scan is broken", checked)
	}
}

type templTag struct {
	text string
	line int
}

// templStartTags are the HTML start tags of a templ file, each whole across
// lines: a > inside a quoted value or a { Go expression } does not end it.
func templStartTags(src string) []templTag {
	var out []templTag
	for i := 0; i < len(src); i++ {
		if src[i] != '<' || i+1 >= len(src) || !isLetter(src[i+1]) {
			continue
		}
		quote, depth := false, 0
		j := i + 1
		for ; j < len(src); j++ {
			c := src[j]
			switch {
			case c == '"' && depth == 0:
				quote = !quote
			case quote:
			case c == '{':
				depth++
			case c == '}':
				depth--
			case c == '>' && depth == 0:
				out = append(out, templTag{text: src[i : j+1], line: 1 + strings.Count(src[:i], "\n")})
				i = j
				j = len(src)
			}
		}
	}
	return out
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
