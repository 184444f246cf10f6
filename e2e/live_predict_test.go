package e2e

import (
	"fmt"
	"testing"

	"github.com/playwright-community/playwright-go"

	"github.com/loglab/loglab/lessons"
)

// Each participant predicts (issue 28): the instructor asks the question
// of acks=1's step 2 on /live; participant A picks the engine's value, B
// the leader's log end offset, each on their own page; the instructor's
// page counts one pick per choice; the instructor answers, which is the
// reveal; A reads their own answer judged right, B theirs judged wrong,
// each with their choice named, and A's pick comes back after a reload. B
// follows on a phone.
// A participant's page offers no Back, Reset, Next, Close or lesson menu:
// it says who moves the lesson instead. Screenshots of the three pages go
// to e2e/out/predict-*.png.
func TestLiveLessonEachParticipantPredicts(t *testing.T) {
	t.Parallel()
	base := ownServer(t)
	l, err := lessons.Find("acks1-leader-crash")
	if err != nil {
		t.Fatal(err)
	}
	const step = 1 // 0-based: the high watermark's question
	right, wrong := "1", "2"
	if q := l.Steps[step].Predict; q == nil || len(q.Choices) != 2 || q.Choices[0].Value != right || q.Choices[1].Value != wrong {
		t.Fatalf("the lesson's step %d is not the question this test knows: %+v", step+1, q)
	}

	instructor := newPageOn(t, base)
	// B follows on a phone, where the lesson and the cluster take turns.
	a := newParticipantPage(t, base)
	b := newPageAt(t, base, playwright.BrowserNewContextOptions{Locale: playwright.String("en-US"),
		Viewport: &playwright.Size{Width: 390, Height: 844}, IsMobile: playwright.Bool(true), HasTouch: playwright.Bool(true)}, false)
	pages := map[string]*watchedPage{"instructor": instructor, "A": a, "B": b}
	for _, p := range pages {
		liveOpen(t, p, base)
	}
	for name, p := range map[string]*watchedPage{"A": a, "B": b} {
		if n, err := p.Locator("#lesson-menu").Count(); err != nil || n != 0 {
			t.Fatalf("%s's page offers the lesson menu (%d, %v): opening a lesson is the instructor's", name, n, err)
		}
	}

	menu := instructor.Locator("#lesson-menu")
	if err := menu.Locator("summary").Click(); err != nil {
		t.Fatal(err)
	}
	if err := menu.Locator(fmt.Sprintf(`button[data-open-lesson=%q]`, l.ID)).Click(); err != nil {
		t.Fatal(err)
	}
	liveWaitStep(t, pages, l, 0, lessons.PhaseShown)
	if err := instructor.Locator("#lesson-next").Click(); err != nil {
		t.Fatal(err)
	}
	liveWaitStep(t, pages, l, step, lessons.PhaseAsk)

	// The lesson's moves are not a participant's: hidden, and the page
	// says who moves it.
	for name, p := range map[string]*watchedPage{"A": a, "B": b} {
		for _, id := range []string{"#lesson-back", "#lesson-reset", "#lesson-next", "#lesson-close"} {
			if err := expect.Locator(p.Locator(id)).ToBeHidden(); err != nil {
				t.Fatalf("%s's page shows %s: %v", name, id, err)
			}
		}
		if err := expect.Locator(p.Locator("#lesson-watch-note")).ToContainText("The instructor moves the lesson"); err != nil {
			t.Fatalf("%s's page does not say who moves the lesson: %v", name, err)
		}
	}
	if err := expect.Locator(instructor.Locator("#lesson-next")).ToBeVisible(); err != nil {
		t.Fatalf("the instructor's Next is gone: %v", err)
	}
	if err := expect.Locator(instructor.Locator(`#predict-tally [data-l="en"]`)).ToHaveText("0 of 2 answered"); err != nil {
		t.Fatalf("the instructor's count before any answer: %v", err)
	}

	choice := func(p *watchedPage, v string) playwright.Locator {
		return p.Locator(fmt.Sprintf(`#lesson-ask button[data-choice=%q]`, v))
	}
	if err := choice(a, right).Click(); err != nil {
		t.Fatal(err)
	}
	if err := choice(b, wrong).Click(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		p    *watchedPage
		name string
		mine string
	}{{a, "A", right}, {b, "B", wrong}} {
		if err := expect.Locator(choice(c.p, c.mine).Locator(".mark-mine")).ToBeVisible(); err != nil {
			t.Fatalf("%s's page does not mark their own pick: %v", c.name, err)
		}
		if n, _ := c.p.Locator("#lesson-ask .mark-mine").Count(); n != 1 {
			t.Fatalf("%s's page marks %d picks as theirs", c.name, n)
		}
		// Nothing ran: a prediction is no answer of the room's.
		if err := expect.Locator(c.p.Locator("#lesson")).ToHaveAttribute("data-phase", "ask"); err != nil {
			t.Fatal(err)
		}
	}
	for _, v := range []string{right, wrong} {
		if err := expect.Locator(choice(instructor, v).Locator(".tally-count")).ToHaveText("1"); err != nil {
			t.Fatalf("the instructor's count for %s: %v", v, err)
		}
	}
	if err := expect.Locator(instructor.Locator(`#predict-tally [data-l="en"]`)).ToHaveText("2 of 2 answered"); err != nil {
		t.Fatalf("the instructor's count: %v", err)
	}
	liveShot(t, instructor, "predict-instructor-counts.png")
	// On the projector, the room sees how many answered, not what.
	projector := instructor.Locator(`[data-layout-toggle="projector"]`).First()
	if err := projector.Click(); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(choice(instructor, right).Locator(".tally-count")).ToBeHidden(); err != nil {
		t.Fatalf("the projector shows the counts before the reveal: %v", err)
	}
	if err := expect.Locator(instructor.Locator(`#predict-tally [data-l="en"]`)).ToHaveText("2 of 2 answered"); err != nil {
		t.Fatalf("the projector's count: %v", err)
	}
	if err := projector.Click(); err != nil {
		t.Fatal(err)
	}
	liveShot(t, a, "predict-a-picked.png")
	liveShot(t, b, "predict-b-picked-phone.png")

	// The instructor's answer is the reveal.
	if err := choice(instructor, wrong).Click(); err != nil {
		t.Fatal(err)
	}
	liveWaitStep(t, pages, l, step, lessons.PhaseShown)
	judged := func(p *watchedPage, name, mine, verdict, class string) {
		t.Helper()
		why := p.Locator(fmt.Sprintf(`#lesson-ask .why.%s[data-why=%q]`, class, mine))
		if err := expect.Locator(why).ToContainText(verdict); err != nil {
			t.Fatalf("%s does not read their own answer %s judged %q: %v", name, mine, verdict, err)
		}
		if err := expect.Locator(why.Locator(".why-pick")).ToContainText("Your answer:"); err != nil {
			t.Fatalf("%s's judgement does not name their choice: %v", name, err)
		}
		if err := expect.Locator(choice(p, mine).Locator(".mark-picked")).ToContainText("your answer: " + class); err != nil {
			t.Fatalf("%s's choice is not marked as their answer: %v", name, err)
		}
	}
	judged(a, "A", right, "Right.", "right")
	judged(b, "B", wrong, "Not quite.", "wrong")
	if n, _ := a.Locator("#lesson-ask .why.wrong").Count(); n != 0 {
		t.Fatal("A, who answered right, reads a wrong answer: the instructor's")
	}
	if err := expect.Locator(b.Locator(fmt.Sprintf(`#lesson-ask .why.right[data-why=%q]`, right))).ToContainText("The engine's answer"); err != nil {
		t.Fatalf("B does not read the engine's answer: %v", err)
	}
	// The instructor's page judges the instructor's own answer.
	if err := expect.Locator(instructor.Locator(fmt.Sprintf(`#lesson-ask .why.wrong[data-why=%q]`, wrong))).ToContainText("Not quite."); err != nil {
		t.Fatalf("the instructor's own answer: %v", err)
	}
	liveShot(t, a, "predict-a-revealed.png")
	liveShot(t, b, "predict-b-revealed-phone.png")
	// The same in Chinese.
	if err := b.Locator(`[data-set-lang="zh"]`).Click(); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(b.Locator(fmt.Sprintf(`#lesson-ask .why.wrong[data-why=%q] .why-pick > [data-l="zh"]`, wrong)).First()).ToContainText("你的答案"); err != nil {
		t.Fatalf("B's judgement in Chinese: %v", err)
	}
	liveShot(t, b, "predict-b-revealed-phone-zh.png")

	// A reloads: their pick is theirs still.
	liveOpen(t, a, base)
	liveWaitStep(t, map[string]*watchedPage{"A": a}, l, step, lessons.PhaseShown)
	judged(a, "A after a reload", right, "Right.", "right")
}
