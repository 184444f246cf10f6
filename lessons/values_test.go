package lessons

import (
	"strings"
	"testing"
)

// TestValuesParse: an engine value in narration is read with its check,
// arguments, value and line, in both languages; it shows as its value;
// mistakes fail the lesson at load with the line.
func TestValuesParse(t *testing.T) {
	src := front + "== step: s\n" +
		"say.en: The leader is {leader orders/0 = 2}; `value=cpu-{i}` stays.\n" +
		"say.zh: leader 是 {leader orders/0 = 2}；`value=cpu-{i}` 不变。\n" +
		"hint.en: Offset {log-end orders/0 = 3}.\n" +
		"hint.zh: offset {log-end orders/0 = 3}。\n"
	l, err := Parse("x.lesson", src)
	if err != nil {
		t.Fatal(err)
	}
	vs := l.Steps[0].Values
	if len(vs) != 4 || vs[0].Check != "leader" || strings.Join(vs[0].Args, " ") != "orders/0" || vs[0].Want != "2" || vs[0].Line != 9 || vs[1].Line != 10 || vs[2].Check != "log-end" || vs[3].Line != 12 {
		t.Fatalf("values %+v", vs)
	}
	r := Render(l)
	if got := r.Steps[0].Say[0].En; got != "<p>The leader is 2; <code>value=cpu-{i}</code> stays.</p>\n" {
		t.Errorf("rendered %q", got)
	}
	if got := r.Steps[0].Hints[0].Zh; got != "offset 3。" {
		t.Errorf("rendered hint %q", got)
	}
	if got := vs[0].withValue("5"); got != "{leader orders/0 = 5}" {
		t.Errorf("withValue %q", got)
	}
	for _, c := range []struct{ name, src, want string }{
		{"unknown check", front + "== step: s\nsay.en: {leadr orders/0 = 2}\nsay.zh: x\n", `x.lesson:9: {leadr orders/0 = 2}: no check named "leadr"`},
		{"no value", front + "== step: s\nsay.en: {leader orders/0}\nsay.zh: {leader orders/0}\n", "x.lesson:9: {leader orders/0}: an engine value is written {leader ARGS = VALUE}"},
		{"languages differ", front + "== step: s\nsay.en: {leader orders/0 = 2}\nsay.zh: 2\n", "x.lesson:10: say.zh: the English and the Chinese state different engine values"},
		{"in a question", front + step + "predict: leader t/0\nquestion.en: Q {leader t/0 = 1}\nquestion.zh: Q {leader t/0 = 1}\n", "x.lesson:13: question.zh: states an engine value ({leader t/0 = 1}) where it would show before the step ran"},
		{"in a title", "id: t\nlevel: beginner\ntitle.en: T {leader t/0 = 1}\ntitle.zh: T {leader t/0 = 1}\n", "x.lesson:4: title.zh: states an engine value"},
		{"in a choice's text", front + step + "predict: leader t/0\nquestion.en: Q\nquestion.zh: Q\nchoice: 1 | en: {leader t/0 = 1} | zh: b | why.en: c | why.zh: d\n", "x.lesson:14: choice: states an engine value"},
		{"why languages differ", front + step + "predict: leader t/0\nquestion.en: Q\nquestion.zh: Q\nchoice: 1 | en: a | zh: b | why.en: {leader t/0 = 1} | why.zh: d\n", "x.lesson:14: choice why: the English and the Chinese state different engine values"},
		{"bad aside", front + step + "aside: acks\n", "x.lesson:11: aside: lists settings as NAME=VALUE"},
	} {
		if _, err := Parse("x.lesson", c.src); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

// TestValuesAreCheckedAndRewritten: a lesson whose narration states a
// value the engine does not give fails the play test's comparison, and the
// rewrite puts the engine's value in the placeholder.
func TestValuesAreCheckedAndRewritten(t *testing.T) {
	src := front + "== step: s\nsay.en: Log end {log-end t/0 = 7}.\nsay.zh: 日志末尾 {log-end t/0 = 7}。\n" +
		"> cluster brokers=1 seed=1\n> topic create t\n> produce t value=a count=2\n"
	l, err := Parse("x.lesson", src)
	if err != nil {
		t.Fatal(err)
	}
	pt, err := Play(l)
	if err != nil {
		t.Fatal(err)
	}
	if got := pt.Values[0]; len(got) != 2 || got[0] != "2" || got[1] != "2" {
		t.Fatalf("values played %q", got)
	}
	ft := &fakeT{}
	checkValues(ft, l, pt)
	if len(ft.errs) != 2 || !strings.Contains(ft.errs[0], "x.lesson:9: the narration states {log-end t/0 = 7} but log-end t/0 gives \"2\"") {
		t.Errorf("checkValues reported %q", ft.errs)
	}
	lines := strings.Split(src, "\n")
	for k, v := range l.Steps[0].Values {
		lines[v.Line-1] = strings.ReplaceAll(lines[v.Line-1], v.Text, v.withValue(pt.Values[0][k]))
	}
	if got := strings.Join(lines, "\n"); !strings.Contains(got, "say.en: Log end {log-end t/0 = 2}.\nsay.zh: 日志末尾 {log-end t/0 = 2}。") {
		t.Errorf("rewritten:\n%s", got)
	}
}
