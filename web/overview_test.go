package web

import (
	"context"
	"strings"
	"testing"
	"time"
)

// The overview says how long ago a cluster was active in seconds for the
// last minute, as a room is watched, then in minutes and hours.
func TestOverviewSaysHowLongAgoInSeconds(t *testing.T) {
	now := time.Date(2026, 12, 8, 10, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		ago    time.Duration
		en, zh string
	}{
		{0, "just now", "刚刚"},
		{12 * time.Second, "12 s ago", "12 秒前"},
		{59*time.Second + 900*time.Millisecond, "59 s ago", "59 秒前"},
		{3 * time.Minute, "3 min ago", "3 分钟前"},
		{2 * time.Hour, "2 h ago", "2 小时前"},
	} {
		if en, zh := agoText(now, now.Add(-c.ago)); en != c.en || zh != c.zh {
			t.Errorf("%v ago: %q / %q, want %q / %q", c.ago, en, zh, c.en, c.zh)
		}
	}
}

// A row names the lesson and step, and lists what is wrong, each
// problem on its own, plural where it is.
func TestOverviewRowShowsLessonStepAndHealth(t *testing.T) {
	now := time.Date(2026, 12, 8, 10, 0, 0, 0, time.UTC)
	html, err := RenderString(context.Background(), InstructorPage([]ClusterRow{
		{ID: "live", Owner: "instructor", LastActive: now, Health: &OverviewHealth{Brokers: 3}},
		{ID: "p-1", Owner: "Ana", LastActive: now.Add(-5 * time.Second), Health: &OverviewHealth{Brokers: 3, BrokersDown: 2, Violations: 3},
			Lesson: &OverviewLesson{Number: 14, ID: "rebalance-protocols", TitleEn: "Eager", TitleZh: "eager", Step: 7, Steps: 7, StepName: "choose", Goal: true}},
		{ID: "p-2", Owner: "Bo"},
	}, now))
	if err != nil {
		t.Fatal(err)
	}
	row := func(id string) string {
		r := html[strings.Index(html, `<tr data-cluster="`+id+`">`):]
		return r[:strings.Index(r, "</tr>")]
	}
	ana := row("p-1")
	for _, want := range []string{`<span class="lesson-number">14</span>`, ">Eager<", `<span class="step-of">7 / 7</span>`, ">choose<", ">goal<",
		">5 s ago<", ">2 brokers down<", ">2 个 broker 宕机<", ">3 invariant violations<", ">3 处不变量被违反<"} {
		if !strings.Contains(ana, want) {
			t.Errorf("Ana's row lacks %q:\n%s", want, ana)
		}
	}
	if live := row("live"); !strings.Contains(live, ">healthy<") || !strings.Contains(live, ">free play<") {
		t.Errorf("the instructor's row:\n%s", live)
	}
	if bo := row("p-2"); !strings.Contains(bo, ">no cluster yet<") || !strings.Contains(bo, ">never<") {
		t.Errorf("Bo's row, no cluster and never active:\n%s", bo)
	}
}
