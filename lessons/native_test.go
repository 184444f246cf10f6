package lessons

import (
	"errors"
	"strings"
	"testing"
)

// nativeLesson has a live command in its first step, between lab
// commands, and a second step that continues on the same cluster.
const nativeLesson = `id: n
mode: native
level: advanced
title.en: T
title.zh: T 中文
goal.en: G
goal.zh: G 中文
== step: measure
say.en: S
say.zh: S 中文
> cluster brokers=1 seed=7
>~ bench fetch 8

> topic create t rf=1

== step: after
say.en: S
say.zh: S 中文
>~ bench fetch
> topic describe t
`

func TestParseNativeMode(t *testing.T) {
	l, err := Parse("n.lesson", nativeLesson)
	if err != nil {
		t.Fatal(err)
	}
	cmds := l.Steps[0].Commands
	if !l.Native || len(cmds) != 3 || cmds[1].Text != "bench fetch 8" || !cmds[1].Live || cmds[0].Live || cmds[2].Live {
		t.Fatalf("native %v, commands %+v", l.Native, cmds)
	}
	// The live command ends the output before it, as a `>` line does.
	if cmds[0].Want != "" || l.Steps[1].Commands[0].Want != "" || l.Steps[1].Commands[1].Text != "topic describe t" {
		t.Fatalf("outputs %+v / %+v", cmds, l.Steps[1].Commands)
	}
	if r := Render(l); !r.Native || !EntryOf(r).Native {
		t.Error("the rendered lesson and its catalogue entry do not say native")
	}
}

func TestParseNativeModeErrors(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"live command in a browser lesson", front + step + ">~ bench fetch\n", "x.lesson:11: a `>~` command runs on the workshop server only"},
		{"live command with an output", strings.Replace(nativeLesson, ">~ bench fetch 8\n", ">~ bench fetch 8\nbench fetch: 100 MB/s\n", 1), "x.lesson:12: a `>~` command's output varies"},
		{"unknown mode", strings.Replace(nativeLesson, "mode: native", "mode: wasm", 1), "x.lesson:2: mode: is native"},
		{"mode inside a step", front + step + "mode: native\n", "x.lesson:11: mode: belongs before the first step"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("x.lesson", c.src)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
}

// The test player skips live commands: the lab has no native commands,
// and a live command must leave the cluster as it was.
func TestPlaySkipsLiveCommands(t *testing.T) {
	l, err := Parse("n.lesson", nativeLesson)
	if err != nil {
		t.Fatal(err)
	}
	pt, err := Play(l)
	if err != nil {
		t.Fatal(err)
	}
	if pt.Outputs[0][1] != "" || !strings.HasPrefix(pt.Outputs[0][2], "created topic t") || !strings.HasPrefix(pt.Outputs[1][1], "Topic: t") {
		t.Fatalf("outputs %q", pt.Outputs)
	}
}

// Without a native runner (the browser lab) a native lesson does not
// open; with one, its live commands go to the runner when their step is
// entered and never when a replay passes them, typed commands go to the
// runner first and to the lab when it does not have them.
func TestNativeSession(t *testing.T) {
	l, err := Parse("n.lesson", nativeLesson)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := NewSession(l, 0, nil); err == nil || !strings.Contains(err.Error(), "native mode") {
		t.Fatalf("a native lesson opened without the server's commands: %v", err)
	}
	var got []string
	runner := func(line string) (string, error, bool) {
		if !strings.HasPrefix(line, "bench ") {
			return "", nil, false
		}
		got = append(got, line)
		if line == "bench fail" {
			return "", errors.New("no segment"), true
		}
		return "measured " + line, nil, true
	}
	s, ch, err := NewNativeSession(l, 0, nil, runner)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if len(ch.Ran) != 3 || ch.Ran[1].Output != "measured bench fetch 8\n" || !ch.Ran[1].OK || !strings.HasPrefix(ch.Ran[2].Output, "created topic t") {
		t.Fatalf("step 0 ran %+v", ch.Ran)
	}
	if r, err := s.Run("bench fail"); err != nil || r.OK || r.Output != "error: no segment\n" {
		t.Fatalf("a failing native command: %+v, %v", r, err)
	}
	if v, _ := s.player.Evaluate("last-error", nil); v != "other" {
		t.Errorf("last-error after a failing native command: %q", v)
	}
	if r, _ := s.Run("show brokers"); !r.OK {
		t.Errorf("a lab command typed in a native lesson: %+v", r)
	}
	// A link to step 1 replays step 0 without measuring again.
	got = nil
	s2, ch, err := NewNativeSession(l, 1, nil, runner)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if strings.Join(got, ",") != "bench fetch" || len(ch.Ran) != 4 || !strings.HasPrefix(ch.Ran[3].Output, "Topic: t") {
		t.Fatalf("replayed to step 1: the runner got %q, ran %+v", got, ch.Ran)
	}
}
