package lessons

import (
	"fmt"
	"strings"
	"testing"
)

// zhFields lists every Chinese text a learner reads in a lesson, with the
// line to fix: title, goals, and each step's say, hint, question, choices
// and their whys, with engine values resolved (as the player shows them).
func zhFields(l *Lesson) []struct {
	Where string
	Text  string
} {
	type field = struct {
		Where string
		Text  string
	}
	var out []field
	add := func(where string, t Text) { out = append(out, field{where, Resolve(t.Zh)}) }
	add(l.File+": title.zh", l.Title)
	for _, g := range l.Goals {
		add(l.File+": goal.zh", g)
	}
	for _, s := range l.Steps {
		at := func(k string) string { return fmt.Sprintf("%s step %s: %s", l.File, s.Name, k) }
		for _, t := range s.Say {
			add(at("say.zh"), t)
		}
		for _, t := range s.Hints {
			add(at("hint.zh"), t)
		}
		if pr := s.Predict; pr != nil {
			add(at("question.zh"), pr.Question)
			for _, c := range pr.Choices {
				add(fmt.Sprintf("%s:%d: choice zh", l.File, c.Line), c.Text)
				add(fmt.Sprintf("%s:%d: choice why.zh", l.File, c.Line), c.Why)
			}
		}
	}
	return out
}

// TestLessonsFollowTheGlossary: no lesson's Chinese uses a rendering
// glossary.tsv forbids (消息 for a record, 压缩 topic for a compacted
// topic, 隔离 for fencing, bare partition for 分区 ...), outside `code`.
func TestLessonsFollowTheGlossary(t *testing.T) {
	g, err := LoadGlossary()
	if err != nil {
		t.Fatal(err)
	}
	all, err := All()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range all {
		for _, f := range zhFields(l) {
			for _, v := range g.Violations(f.Text) {
				lo := max(0, v.At-30)
				t.Errorf("%s: %s, in …%s…", f.Where, v, strings.TrimSpace(f.Text[lo:min(len(f.Text), v.At+len(v.Found)+30)]))
			}
		}
	}
}

// TestGlossaryCatchesTheKnownMistakes: the checker finds each
// meaning-changing rendering the audit found, and leaves alone what is
// right: code, config names, allowed phrases, other words.
func TestGlossaryCatchesTheKnownMistakes(t *testing.T) {
	g, err := LoadGlossary()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		zh   string
		want []string // the forbidden renderings found, in order
	}{
		{"已提交的 offset 是一个压缩 topic 里的记录", []string{"压缩 topic"}},
		{"消费延迟（records-lag 之和）", []string{"消费延迟"}},
		{"用 epoch 隔离僵尸实例，隔离级别是 read_committed", []string{"隔离"}},
		{"最慢成员的那一批处理", []string{"批处理"}},
		{"这条已确认消息丢了；消息队列不一样", []string{"消息"}},
		{"每个 partition 的 leader，以及 partitions", []string{"partition", "partitions"}},
		{"`partition.assignment.strategy` 与 partition.assignment.strategy、`__consumer_offsets` 的 partition epoch", nil},
		{"`__cluster_metadata` 与 metadata version，但 metadata 日志", []string{"metadata"}},
		{"精确一次与恰好一次", []string{"精确一次"}},
		{"他说\"对\"", []string{"\"", "\""}},
		{"`\"key\"` 在代码里", nil},
		{"retention.ms 与 retention", []string{"retention"}},
		{"压缩编码 gzip 与 compaction", nil},
	} {
		var got []string
		for _, v := range g.Violations(c.zh) {
			got = append(got, v.Found)
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%q: found %q, want %q", c.zh, got, c.want)
		}
	}
}

// TestGlossaryFormat: a malformed line is refused with its line number,
// and every term says why.
func TestGlossaryFormat(t *testing.T) {
	g, err := LoadGlossary()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, term := range g {
		if first, dup := seen[term.Concept]; dup {
			t.Errorf("glossary.tsv:%d: %s is already on line %d", term.Line, term.Concept, first)
		}
		seen[term.Concept] = term.Line
	}
	for _, bad := range []string{"partition\t分区\tpartition\n", "x\t\t\t\twhy\n", "x\ty\tz\tnot-it\twhy\n"} {
		if _, err := ParseGlossary(bad); err == nil || !strings.Contains(err.Error(), "glossary.tsv:1:") {
			t.Errorf("%q: error %v", bad, err)
		}
	}
}
