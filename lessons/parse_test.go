package lessons

import (
	"strings"
	"testing"
)

const front = `id: t
level: beginner
minutes: 5
title.en: T
title.zh: T 中文
goal.en: G
goal.zh: G 中文
`

const step = `== step: s
say.en: S
say.zh: S 中文
`

// TestParseErrorsNameTheLine: a trainer's mistake must point at its line.
func TestParseErrorsNameTheLine(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		{"unknown keyword", front + step + "sya.en: typo\n", "x.lesson:11: unknown line"},
		{"missing id", "level: beginner\ntitle.en: T\ntitle.zh: T\ngoal.en: G\ngoal.zh: G\n" + step, "x.lesson:6: the lesson needs an `id:`"},
		{"missing title", "id: t\nlevel: beginner\ngoal.en: G\ngoal.zh: G\n" + step, "x.lesson:1: the lesson has no title.en:"},
		{"missing translation of a title", "id: t\ntitle.en: T\n" + step, "x.lesson:2: title.en has no title.zh translation"},
		{"missing translation of narration", front + "== step: s\nsay.en: S\n> tick 1s\n", "x.lesson:9: say.en has no say.zh translation"},
		{"zh before en", front + "== step: s\nsay.zh: S\n", "x.lesson:9: say.zh without a say.en"},
		{"command outside a step", front + "> tick 1s\n", "x.lesson:8: a command outside a step"},
		{"unknown predict check", front + step + "predict: nope orders/0\n", "x.lesson:11: predict: no check named \"nope\""},
		{"unknown goal check", front + "== goal: g\nsay.en: S\nsay.zh: S\ngoal-check: nope = 1\nsolution: > tick 1s\n", "x.lesson:11: goal-check: no check named \"nope\""},
		{"goal without solution", front + "== goal: g\nsay.en: S\nsay.zh: S\ngoal-check: last-error = NOT_ENOUGH_REPLICAS\n", "x.lesson:8: goal step \"g\" needs a goal-check: and at least one solution:"},
		{"choice without predict", front + step + "choice: 1 | en: a | zh: b | why.en: c | why.zh: d\n", "x.lesson:11: choice: needs a predict:"},
		{"choice missing its Chinese", front + step + "predict: leader t/0\nquestion.en: Q\nquestion.zh: Q\nchoice: 1 | en: a | why.en: c | why.zh: d\n", "x.lesson:14: choice: needs a value and en:, zh:"},
		{"one choice only", front + step + "predict: leader t/0\nquestion.en: Q\nquestion.zh: Q\nchoice: 1 | en: a | zh: b | why.en: c | why.zh: d\n", "x.lesson:11: predict: needs at least two choice: lines"},
		{"two choices with one value", front + step + "predict: leader t/0\nquestion.en: Q\nquestion.zh: Q\nchoice: 1 | en: a | zh: b | why.en: c | why.zh: d\nchoice: 1 | en: e | zh: f | why.en: g | why.zh: h\n", "x.lesson:15: choice: value \"1\" is already the choice on line 14"},
		{"predict without question", front + step + "predict: leader t/0\nchoice: 1 | en: a | zh: b | why.en: c | why.zh: d\nchoice: 2 | en: e | zh: f | why.en: g | why.zh: h\n", "x.lesson:11: predict: needs question.en:"},
		{"front matter inside a step", front + step + "minutes: 3\n", "x.lesson:11: minutes: belongs before the first step"},
		{"bad level", "id: t\nlevel: easy\n", "x.lesson:2: level: is beginner"},
		{"bad header", front + "== stpe: s\n", "x.lesson:8: a step header is"},
		{"no steps", front, "the lesson has no steps"},
		{"step with no narration", front + "== step: s\n> tick 1s\n", "x.lesson:8: step \"s\" says nothing"},
		{"predict in a goal step", front + "== goal: g\nsay.en: S\nsay.zh: S\npredict: leader t/0\nquestion.en: Q\nquestion.zh: Q\nchoice: 1 | en: a | zh: b | why.en: c | why.zh: d\nchoice: 2 | en: e | zh: f | why.en: g | why.zh: h\ngoal-check: last-error = NOT_ENOUGH_REPLICAS\nsolution: > tick 1s\n", "x.lesson:11: predict: belongs in a `== step:`"},
		{"command in a goal step", front + "== goal: g\nsay.en: S\nsay.zh: S\n> tick 1s\n", "x.lesson:11: a goal step's commands are the learner's"},
		{"focus on an unknown element", front + step + "focus: replica orders/0 2\n", "x.lesson:11: focus: \"replica orders/0 2\": unknown element \"replica\""},
		{"focus on an unknown partition element", front + step + "focus: partition orders/0 log\n", "x.lesson:11: focus: \"partition orders/0 log\": unknown partition element \"log\""},
		{"focus on a replica's unknown element", front + step + "focus: partition orders/0 replica 2 log\n", "x.lesson:11: focus: \"partition orders/0 replica 2 log\": replica B is followed by nothing, hw, leo or isr"},
		{"focus without a partition index", front + step + "focus: partition orders isr\n", "x.lesson:11: focus: \"partition orders isr\": \"orders\" is not TOPIC/PARTITION"},
		{"focus on a record without offset", front + step + "focus: partition orders/0 record\n", "x.lesson:11: focus: \"partition orders/0 record\": record is followed by an offset"},
		{"focus on a broker without id", front + step + "focus: broker\n", "x.lesson:11: focus: \"broker\": broker is followed by its id"},
		{"focus with an empty state", front + step + "focus: partition orders/0 hw = \n", "x.lesson:11: focus: \"partition orders/0 hw =\" has ` = ` but no state"},
		{"two focus lines", front + step + "focus: violations\nfocus: metadata-log\n", "x.lesson:12: one focus: per step (the one on line 11)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("x.lesson", c.src)
			if err == nil {
				t.Fatalf("parsed; want error %q", c.want)
			}
			if !strings.HasPrefix(err.Error(), c.want) && !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q, want %q", err, c.want)
			}
		})
	}
}

// TestParseReadsOutputs: a command's output runs to the next command, step
// or keyword line, and keeps the engine's indentation and tabs.
func TestParseReadsOutputs(t *testing.T) {
	src := front + step + "> tick 1s\ntime is 1s (+1s)\n  [1s] b1: x\n> show isr t/0\nhint.en: h\nhint.zh: h 中文\n"
	l, err := Parse("x.lesson", src)
	if err != nil {
		t.Fatal(err)
	}
	cmds := l.Steps[0].Commands
	if len(cmds) != 2 || cmds[0].Want != "time is 1s (+1s)\n  [1s] b1: x\n" || cmds[1].Want != "" || len(l.Steps[0].Hints) != 1 {
		t.Fatalf("commands %+v hints %+v", cmds, l.Steps[0].Hints)
	}
	if cmds[0].OutFrom != 11 || cmds[0].OutTo != 13 {
		t.Fatalf("output lines [%d,%d), want [11,13)", cmds[0].OutFrom, cmds[0].OutTo)
	}
}

func TestLessonsLoadInOrder(t *testing.T) {
	all, err := All()
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(all); i++ {
		if all[i-1].Order > all[i].Order {
			t.Fatalf("%s (order %d) before %s (order %d)", all[i-1].File, all[i-1].Order, all[i].File, all[i].Order)
		}
	}
	for _, l := range all {
		if l.File == "04-acks1-leader-crash.lesson" && l.Order != 4 {
			t.Fatalf("04-acks1-leader-crash.lesson has order %d, want 4 from its file name", l.Order)
		}
	}
}

// TestTranscriptIgnoresLineEndBlanks: a command printing "Configs: " (with
// Kafka's trailing blank) is recorded and compared without it.
func TestTranscriptIgnoresLineEndBlanks(t *testing.T) {
	if got := TrimLineEnds("a \nConfigs: \t\nb\n"); got != "a\nConfigs:\nb\n" {
		t.Errorf("got %q", got)
	}
}

// TestParseKeepsBlankLinesInsideAnOutput: `show group` prints three tables
// separated by blank lines, as kafka-consumer-groups.sh does; a blank line
// followed by more output is part of the output, while one followed by a
// keyword, a command, a header, a trainer note or the end still ends it.
func TestParseKeepsBlankLinesInsideAnOutput(t *testing.T) {
	src := front + step + "> show group g\nGROUP TOPIC\n\n\nGROUP STATE\n\n> tick 1s\ntime is 1s\n\n# note\n\n> tick 1s\ntime is 2s\n\nsay.en: S2\nsay.zh: S2 中文\n"
	l, err := Parse("x.lesson", src)
	if err != nil {
		t.Fatal(err)
	}
	cmds := l.Steps[0].Commands
	if len(cmds) != 3 || cmds[0].Want != "GROUP TOPIC\n\n\nGROUP STATE\n" || cmds[1].Want != "time is 1s\n" || cmds[2].Want != "time is 2s\n" {
		t.Fatalf("commands %+v", cmds)
	}
	if cmds[0].OutFrom != 11 || cmds[0].OutTo != 15 {
		t.Fatalf("output lines [%d,%d), want [11,15)", cmds[0].OutFrom, cmds[0].OutTo)
	}
}
