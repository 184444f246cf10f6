package lessons

import (
	"strings"
	"testing"
)

// TestRender: the player gets every choice with its explanation (the
// type has no place for which is right), and Markdown becomes HTML
// without raw HTML passing through.
func TestRender(t *testing.T) {
	l, err := Parse("session.lesson", sessionLesson)
	if err != nil {
		t.Fatal(err)
	}
	r := Render(l)
	if len(r.Steps) != 4 || r.Steps[1].Question == nil || len(r.Steps[1].Choices) != 3 {
		t.Fatalf("rendered %+v", r)
	}
	if got := r.Steps[1].Choices[1]; got.Value != "2" || got.Text.Zh != "二" || got.Why.En != "b" {
		t.Errorf("choice rendered %+v", got)
	}
	md := block(Text{En: "acks=1 is **fast** with `linger.ms` <script>alert(1)</script>", Zh: "很**快**"})
	if !strings.Contains(md.En, "<strong>fast</strong>") || !strings.Contains(md.En, "<code>linger.ms</code>") || strings.Contains(md.En, "<script>") {
		t.Errorf("en rendered %q", md.En)
	}
	if md.Zh != "<p>很<strong>快</strong></p>\n" {
		t.Errorf("zh rendered %q", md.Zh)
	}
	if got := inline(Text{En: "a `b`", Zh: "c"}); got.En != "a <code>b</code>" || got.Zh != "c" {
		t.Errorf("inline rendered %+v", got)
	}
}
