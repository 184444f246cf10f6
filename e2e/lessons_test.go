package e2e

import (
	"context"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/playwright-community/playwright-go"

	"github.com/loglab/loglab/lessons"
	"github.com/loglab/loglab/web"
)

// The lesson player walks every lesson to its end in the browser lab at
// 1280x720, driven only through the page: predictions answered by their
// buttons (the first lesson's first one wrongly, to meet its
// explanation), goals solved by typing the lesson's solution into the
// console. A native lessons.Session plays alongside: it tells which choice
// is the engine's and what the step's element must show, which the page
// must then show in sight and highlighted.
//
// lessonWalkers browsers walk at once, each a share of the lessons one
// after another in one page: each lesson opens by its link, as from the
// catalogue, the browser keeping the compiled module between them; then
// that browser's catalogue lists every lesson and remembers that each of
// its share was finished.
func TestLessonsWalkEveryLessonInTheLab(t *testing.T) {
	t.Parallel()
	all, err := lessons.All()
	if err != nil {
		t.Fatal(err)
	}
	var walked []*lessons.Lesson
	for _, l := range all {
		// `mode: native`: the browser lab refuses it (it needs the
		// workshop server's own commands); the server's tests play it.
		if !l.Native {
			walked = append(walked, l)
		}
	}
	shares := shareLessons(walked, lessonWalkers)
	pages := make([]*watchedPage, len(shares))
	for i := range shares {
		pages[i] = newPageWith(t, playwright.BrowserNewContextOptions{Locale: playwright.String("en-US"), Viewport: &playwright.Size{Width: 1280, Height: 720}})
	}
	// Each browser's lessons are subtests run from a goroutine of its own
	// (t.Run may be called from several at once): they keep their names,
	// TestLessonsWalkEveryLessonInTheLab/<id>, and the test waits for all.
	var wg sync.WaitGroup
	for i, share := range shares {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, l := range share {
				t.Run(l.ID, func(t *testing.T) {
					walkLesson(t, pages[i], l, walk{wrongOnce: l == all[0], lang: "en"})
				})
			}
		}()
	}
	wg.Wait()

	for i, p := range pages {
		if _, err := p.Goto(p.base + "/"); err != nil {
			t.Fatal(err)
		}
		cards := p.Locator(".lesson-card")
		if err := expect.Locator(cards).ToHaveCount(len(all)); err != nil {
			t.Fatal(err)
		}
		for _, l := range shares[i] {
			if err := expect.Locator(p.Locator(fmt.Sprintf(`.lesson-card[data-lesson-id=%q]`, l.ID))).ToHaveAttribute("data-state", "done"); err != nil {
				t.Errorf("the catalogue does not show %s as done in the browser that walked it: %v", l.ID, err)
			}
		}
		if err := expect.Locator(p.Locator(`.lesson-card[data-state="done"]`)).ToHaveCount(len(shares[i])); err != nil {
			t.Fatalf("the catalogue does not show every lesson its browser walked as done: %v", err)
		}
		above, err := p.Evaluate(`() => document.querySelector(".catalogue").getBoundingClientRect().bottom <= document.querySelector(".choices").getBoundingClientRect().top`)
		if err != nil || above != true {
			t.Fatalf("the catalogue is not above the sandboxes (%v)", err)
		}
		name := "catalogue-done"
		if i > 0 {
			name += fmt.Sprint("-", i+1)
		}
		shot(t, p, name)
	}
}

// Every lesson again on a phone (390x844): the lesson and the cluster
// take turns on the screen (one tap apart), so each step is read on the
// lesson's tab, its narration's start and its question in sight
// together, and its element is checked on the cluster's tab.
func TestLessonsWalkEveryLessonOnAPhone(t *testing.T) {
	t.Parallel()
	walkEach(t, playwright.Size{Width: 390, Height: 844}, walk{lang: "en", size: "390x844", phone: true}, lessonWalkers, nil)
}

// A sample of lessons at the other sizes a room brings, one lesson a
// size (each walk costs the suite seconds): a tablet upright (768x1024,
// two narrow columns) with the lesson whose element is a group's
// timeline, taller than the cluster's column (14); one lying down
// (1024x768) with a long narration and a goal (23); a large screen
// (1920x1080) with the storage lesson (1).
func TestLessonsFitTabletsAndLargeScreens(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		size   playwright.Size
		lesson string
	}{
		{playwright.Size{Width: 768, Height: 1024}, "rebalance-protocols"},
		{playwright.Size{Width: 1024, Height: 768}, "exactly-once-pipeline"},
		{playwright.Size{Width: 1920, Height: 1080}, "log-not-a-queue"},
	} {
		name := fmt.Sprintf("%dx%d", c.size.Width, c.size.Height)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			walkEach(t, c.size, walk{lang: "en", size: name}, 1, map[string]bool{c.lesson: true})
		})
	}
}

// walkEach walks every lesson the browser lab plays (only those in only,
// when given) at size, in walkers browsers at once.
func walkEach(t *testing.T, size playwright.Size, w walk, walkers int, only map[string]bool) {
	t.Helper()
	all, err := lessons.All()
	if err != nil {
		t.Fatal(err)
	}
	var walked []*lessons.Lesson
	for _, l := range all {
		if !l.Native && (only == nil || only[l.ID]) {
			walked = append(walked, l)
		}
	}
	if only != nil && len(walked) != len(only) {
		t.Fatalf("the sample names %d lessons, %d of them found", len(only), len(walked))
	}
	shares := shareLessons(walked, walkers)
	var wg sync.WaitGroup
	for _, share := range shares {
		p := newPageWith(t, playwright.BrowserNewContextOptions{Locale: playwright.String("en-US"), Viewport: &size,
			IsMobile: playwright.Bool(w.phone), HasTouch: playwright.Bool(w.phone)})
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, l := range share {
				t.Run(l.ID, func(t *testing.T) { walkLesson(t, p, l, w) })
			}
		}()
	}
	wg.Wait()
}

// lessonWalkers is how many browsers walk the lessons at once: a
// browser's progress is one localStorage entry its pages read and write
// back, so one page per browser walks its share in turn.
const lessonWalkers = 3

// shareLessons deals the lessons to n walkers, the longest (most steps)
// first to the walker with the fewest steps so far, each share then in
// the catalogue's order.
func shareLessons(ls []*lessons.Lesson, n int) [][]*lessons.Lesson {
	order := make([]int, len(ls))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return len(ls[order[a]].Steps) > len(ls[order[b]].Steps) })
	steps := make([]int, n)
	picked := make([][]int, n)
	for _, i := range order {
		w := 0
		for j := range steps {
			if steps[j] < steps[w] {
				w = j
			}
		}
		steps[w] += len(ls[i].Steps)
		picked[w] = append(picked[w], i)
	}
	var shares [][]*lessons.Lesson
	for _, p := range picked {
		if len(p) == 0 {
			continue
		}
		sort.Ints(p)
		var share []*lessons.Lesson
		for _, i := range p {
			share = append(share, ls[i])
		}
		shares = append(shares, share)
	}
	return shares
}

// One lesson again, in a browser that prefers Chinese: the narration and
// the player's chrome are Chinese; the switch turns them English, and the
// choice survives a reload.
func TestLessonWalkInChinese(t *testing.T) {
	t.Parallel()
	all, err := lessons.All()
	if err != nil {
		t.Fatal(err)
	}
	l := all[0]
	p := newPageWith(t, playwright.BrowserNewContextOptions{Locale: playwright.String("zh-CN"), Viewport: &playwright.Size{Width: 1280, Height: 720}})
	walkLesson(t, p, l, walk{lang: "zh"})

	// The catalogue too is Chinese, with the lesson done.
	if _, err := p.Goto(p.base + "/"); err != nil {
		t.Fatal(err)
	}
	card := p.Locator(fmt.Sprintf(`.lesson-card[data-lesson-id=%q]`, l.ID))
	if err := expect.Locator(card.Locator(`.lesson-title [data-l="zh"]`)).ToBeVisible(); err != nil {
		t.Fatal(err)
	}
	progress := card.Locator(`.lesson-progress [data-l="zh"]`)
	if err := expect.Locator(progress).ToBeVisible(); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(progress).ToHaveText("已完成 ✓"); err != nil {
		t.Fatal(err)
	}
	shot(t, p, "catalogue-zh")

	// The switch turns the page English, and the choice is remembered on
	// the next page loaded.
	if err := p.Locator(`[data-set-lang="en"]`).Click(); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(card.Locator(`.lesson-title [data-l="en"]`)).ToBeVisible(); err != nil {
		t.Fatal(err)
	}
	p.open(t, fmt.Sprintf("/lab?lesson=%s&step=%d", l.ID, len(l.Steps)))
	waitStep(t, p, len(l.Steps))
	assertLanguage(t, p, "en")
	if _, err := p.Reload(); err != nil {
		t.Fatal(err)
	}
	waitStep(t, p, len(l.Steps))
	assertLanguage(t, p, "en")
}

// Back replays the lesson to the step before: the transcript and the
// cluster are exactly what Next showed there. A link to a step opens it
// the same way, and so does Reset after the learner's own commands.
func TestLessonBackAndStepLinks(t *testing.T) {
	t.Parallel()
	all, err := lessons.All()
	if err != nil {
		t.Fatal(err)
	}
	var l *lessons.Lesson
	for _, c := range all {
		if len(c.Steps) >= 3 {
			l = c
			break
		}
	}
	if l == nil {
		t.Fatal("no lesson has three steps")
	}
	// Reduced motion turns the messages' animation off (static/animate.js):
	// the walk then waits on the lab alone, not on animations that keep
	// the page's main thread busy.
	p := newPageWith(t, playwright.BrowserNewContextOptions{Locale: playwright.String("en-US"), Viewport: &playwright.Size{Width: 1280, Height: 720}, ReducedMotion: playwright.ReducedMotionReduce})
	// The controller quorum runs in virtual time: the same lesson step
	// draws the same lab, quorum included, however loaded the machine.
	if diff := backAndLink(t, p, l); diff != "" {
		t.Fatal(diff)
	}
	if got, _ := p.Locator("#lesson-link").GetAttribute("href"); !strings.HasSuffix(got, fmt.Sprintf("/lab?lesson=%s&step=2", l.ID)) {
		t.Fatalf("the step's link is %q", got)
	}
}

// backAndLink walks to step 3, goes back to 2 and opens a link to step 2,
// and returns how a lab differed from the one Next showed at step 2.
func backAndLink(t *testing.T, p *watchedPage, l *lessons.Lesson) string {
	p.open(t, "/lab?lesson="+l.ID)
	waitStep(t, p, 1)
	native := nativeSession(t, l, 0)
	advance(t, p, native, l, 0, walk{lang: "en"})
	clickNext(t, p, native)
	waitStep(t, p, 2)
	atTwo := snapshot(t, p)

	advance(t, p, native, l, 1, walk{lang: "en"})
	clickNext(t, p, native)
	waitStep(t, p, 3)
	if err := p.Locator("#lesson-back").Click(); err != nil {
		t.Fatal(err)
	}
	waitStep(t, p, 2)
	if got := snapshot(t, p); got != atTwo {
		return differs("back to step 2", atTwo, got)
	}
	p.open(t, fmt.Sprintf("/lab?lesson=%s&step=2", l.ID))
	waitStep(t, p, 2)
	if got := snapshot(t, p); got != atTwo {
		return differs("the link to step 2", atTwo, got)
	}

	// Free play after the step is shown: the learner's own command runs;
	// Reset gives the step back as the lesson made it.
	advance(t, p, nativeSession(t, l, 1), l, 1, walk{lang: "en"})
	p.command(t, "tick 1s")
	if err := expect.Locator(p.Locator("#transcript .entry").Last()).ToContainText("time is"); err != nil {
		t.Fatalf("free play: %v", err)
	}
	if err := p.Locator("#lesson-reset").Click(); err != nil {
		t.Fatal(err)
	}
	waitStep(t, p, 2)
	if got := snapshot(t, p); got != atTwo {
		return differs("reset of step 2", atTwo, got)
	}
	return ""
}

func differs(what, want, got string) string {
	return what + " shows another lab than next did:\n" + firstDifference(want, got)
}

type walk struct {
	wrongOnce bool   // answer the first prediction with a wrong choice
	lang      string // "en" or "zh": the language the page must show
	size      string // the viewport, "1280x720" when empty: names the screenshots
	phone     bool   // the lesson and the cluster are tabs, one tap apart
}

func nativeSession(t *testing.T, l *lessons.Lesson, step int) *lessons.Session {
	t.Helper()
	s, _, err := lessons.NewSession(l, step, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func walkLesson(t *testing.T, p *watchedPage, l *lessons.Lesson, w walk) {
	t.Helper()
	p.open(t, "/lab?lesson="+l.ID)
	native := nativeSession(t, l, 0)
	for i := range l.Steps {
		waitStep(t, p, i+1)
		assertLanguage(t, p, w.lang)
		assertReadable(t, p, i+1, "before the answer")
		w.wrongOnce = advance(t, p, native, l, i, w)
		suffix := ""
		if w.lang != "en" {
			suffix = "-" + w.lang
		}
		if w.size != "" {
			suffix += "-" + w.size
		}
		if w.phone {
			// The answer is read on the lesson's tab; the picture is one
			// tap away, and the lesson one tap back.
			assertReadable(t, p, i+1, "after the answer")
			shot(t, p, fmt.Sprintf("lesson-%s-%d%s", l.ID, i+1, suffix))
			showTab(t, p, "cluster")
			assertFocus(t, p, native)
			shot(t, p, fmt.Sprintf("lesson-%s-%d%s-cluster", l.ID, i+1, suffix))
			showTab(t, p, "lesson")
		} else {
			assertFocus(t, p, native)
			assertReadable(t, p, i+1, "after the answer")
			shot(t, p, fmt.Sprintf("lesson-%s-%d%s", l.ID, i+1, suffix))
		}
		if i+1 < len(l.Steps) {
			clickNext(t, p, native)
		}
	}
	if err := expect.Locator(p.Locator("#lesson .lesson-done")).ToBeVisible(); err != nil {
		t.Fatalf("the last step does not say the lesson is done: %v", err)
	}
}

// advance does what step i asks: answers its prediction or solves its
// goal, in the page and natively. It returns whether a wrong answer is
// still to be given.
func advance(t *testing.T, p *watchedPage, native *lessons.Session, l *lessons.Lesson, i int, w walk) bool {
	t.Helper()
	st := l.Steps[i]
	panel := p.Locator("#lesson")
	if pr := st.Predict; pr != nil {
		if _, err := native.Answer(pr.Choices[0].Value); err != nil {
			t.Fatal(err)
		}
		right := native.Status().Right
		pick := right
		if w.wrongOnce {
			for _, c := range pr.Choices {
				if c.Value != right {
					pick = c.Value
					break
				}
			}
		}
		if err := expect.Locator(panel).ToHaveAttribute("data-phase", "ask"); err != nil {
			t.Fatalf("step %d (%s) does not ask: %v", i+1, st.Name, err)
		}
		if err := p.Locator(fmt.Sprintf(`#lesson .choice-button[data-choice=%q]`, pick)).Click(); err != nil {
			t.Fatal(err)
		}
		if err := expect.Locator(panel).ToHaveAttribute("data-phase", "shown"); err != nil {
			t.Fatal(err)
		}
		if err := expect.Locator(p.Locator(fmt.Sprintf(`#lesson .choice-button.right[data-choice=%q]`, right))).ToBeVisible(); err != nil {
			t.Fatalf("step %d: the engine's value %q is not marked as the right choice: %v", i+1, right, err)
		}
		if pick != right {
			why := p.Locator(fmt.Sprintf(`#lesson .why.wrong[data-why=%q] > [data-l="en"]`, pick))
			if err := expect.Locator(p.Locator(fmt.Sprintf(`#lesson .choice-button.picked.wrong[data-choice=%q]`, pick))).ToBeVisible(); err != nil {
				t.Fatalf("the wrong pick is not marked wrong: %v", err)
			}
			if err := expect.Locator(why).ToBeVisible(); err != nil {
				t.Fatalf("the wrong pick's explanation is not shown: %v", err)
			}
			for _, c := range pr.Choices {
				if c.Value == pick {
					if err := expect.Locator(why).ToContainText(firstWords(c.Why.En)); err != nil {
						t.Fatalf("the wrong pick's explanation is not its why: %v", err)
					}
				}
			}
			return false
		}
		return w.wrongOnce
	}
	if st.Goal {
		if err := expect.Locator(panel).ToHaveAttribute("data-phase", "goal"); err != nil {
			t.Fatalf("goal step %d (%s) is not waiting for the learner: %v", i+1, st.Name, err)
		}
		if len(st.Hints) > 0 {
			if err := p.Locator("#lesson-hint").Click(); err != nil {
				t.Fatal(err)
			}
			if err := expect.Locator(p.Locator(`#lesson .hint[data-hint="1"]`)).ToBeVisible(); err != nil {
				t.Fatalf("the first hint does not show: %v", err)
			}
			if err := expect.Locator(p.Locator(`#lesson .hint`)).ToHaveCount(1); err != nil {
				t.Fatalf("hints are revealed one at a time: %v", err)
			}
		}
		if w.phone {
			// A phone's console is on the cluster's tab, beside what the
			// commands change.
			showTab(t, p, "cluster")
		}
		entries := p.Locator("#transcript .entry")
		for _, cmd := range st.Solution {
			n, err := entries.Count()
			if err != nil {
				t.Fatal(err)
			}
			p.command(t, cmd)
			if err := expect.Locator(entries).ToHaveCount(n + 1); err != nil {
				t.Fatalf("%q never answered: %v", cmd, err)
			}
			if _, err := native.Run(cmd); err != nil {
				t.Fatal(err)
			}
		}
		if w.phone {
			showTab(t, p, "lesson")
		}
		if err := expect.Locator(p.Locator("#goal-banner.reached")).ToBeVisible(); err != nil {
			t.Fatalf("goal %s: no \"goal reached\" after the lesson's solution: %v", st.Name, err)
		}
		if err := expect.Locator(panel).ToHaveAttribute("data-phase", "reached"); err != nil {
			t.Fatal(err)
		}
	}
	return w.wrongOnce
}

func clickNext(t *testing.T, p *watchedPage, native *lessons.Session) {
	t.Helper()
	if err := p.Locator("#lesson-next").Click(); err != nil {
		t.Fatal(err)
	}
	if _, err := native.Next(); err != nil {
		t.Fatal(err)
	}
}

// waitStep waits until the player shows step n (1-based) with no action
// on its way.
func waitStep(t *testing.T, p *watchedPage, n int) {
	t.Helper()
	if err := expect.Locator(p.Locator(fmt.Sprintf(`#lesson[data-step="%d"]:not([data-busy])`, n))).ToBeVisible(); err != nil {
		t.Fatalf("step %d never showed: %v", n, err)
	}
}

// assertLanguage: the narration and the player's chrome show in lang only.
func assertLanguage(t *testing.T, p *watchedPage, lang string) {
	t.Helper()
	other := map[string]string{"en": "zh", "zh": "en"}[lang]
	for _, sel := range []string{"#lesson-title", "#lesson-body .say", "#lesson-next", "#lesson-step"} {
		if err := expect.Locator(p.Locator(sel + ` [data-l="` + lang + `"]`).First()).ToBeVisible(); err != nil {
			t.Fatalf("%s is not shown in %s: %v", sel, lang, err)
		}
		if err := expect.Locator(p.Locator(sel + ` [data-l="` + other + `"]`).First()).ToBeHidden(); err != nil {
			t.Fatalf("%s also shows %s: %v", sel, other, err)
		}
	}
}

// assertReadable: the page does not scroll sideways, nothing in the lesson
// panel is wider than the panel, and the step's narration (its start)
// and what it asks (the question, or the goal) are inside the viewport
// together, without scrolling: the reader sees where the step begins and
// what it wants at once, whatever the screen.
func assertReadable(t *testing.T, p *watchedPage, step int, when string) {
	t.Helper()
	got, err := p.Evaluate(`() => {
		const box = (el) => { if (!el) return null; const r = el.getBoundingClientRect(); return r.width || r.height ? { top: r.top, bottom: r.bottom, left: r.left, right: r.right } : null; };
		const lang = document.documentElement.dataset.lang === "zh" ? "zh" : "en";
		const say = document.querySelector('#lesson-body .say [data-l="' + lang + '"] > :first-child') || document.querySelector('#lesson-body .say [data-l="' + lang + '"]');
		const ask = document.querySelector('#lesson .predict .question') || document.querySelector('#lesson #goal-banner');
		const panel = document.getElementById("lesson");
		let wide = "";
		for (const el of panel.querySelectorAll("*")) {
			const r = el.getBoundingClientRect();
			if (r.width && r.right > panel.getBoundingClientRect().right + 1 && getComputedStyle(el).position !== "fixed") { wide = el.outerHTML.slice(0, 120); break; }
		}
		return { scrollWidth: document.documentElement.scrollWidth, width: innerWidth, height: innerHeight,
			say: box(say), ask: box(ask), hasAsk: !!document.querySelector('#lesson .predict, #lesson #goal-banner'), wide };
	}`)
	if err != nil {
		t.Fatal(err)
	}
	m := got.(map[string]any)
	num := func(v any) float64 {
		switch v := v.(type) {
		case float64:
			return v
		case int:
			return float64(v)
		}
		return -1
	}
	width, height := num(m["width"]), num(m["height"])
	if sw := num(m["scrollWidth"]); sw > width {
		t.Errorf("step %d %s: the page is %.0f px wide in a %.0f px viewport: it scrolls sideways", step, when, sw, width)
	}
	if w, _ := m["wide"].(string); w != "" {
		t.Errorf("step %d %s: the lesson panel cuts an element wider than itself: %s", step, when, w)
	}
	inside := func(what string, b any, whole bool) {
		r, ok := b.(map[string]any)
		if !ok {
			t.Errorf("step %d %s: the %s is not shown", step, when, what)
			return
		}
		top, bottom, left, right := num(r["top"]), num(r["bottom"]), num(r["left"]), num(r["right"])
		if top < 0 || left < 0 || right > width || top >= height-16 || (whole && bottom > height) {
			t.Errorf("step %d %s: the %s is at top %.0f bottom %.0f left %.0f right %.0f: not inside the %.0fx%.0f viewport",
				step, when, what, top, bottom, left, right, width, height)
		}
	}
	inside("narration's start", m["say"], false)
	if m["hasAsk"] == true {
		inside("question (or goal)", m["ask"], true)
	}
}

// showTab taps a phone's lesson or cluster tab.
func showTab(t *testing.T, p *watchedPage, tab string) {
	t.Helper()
	if err := p.Locator(fmt.Sprintf(`#lesson-tabs button[data-tab=%q]`, tab)).Click(); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(p.Locator(fmt.Sprintf(`.workspace[data-tab=%q]`, tab))).ToHaveCount(1); err != nil {
		t.Fatalf("the %s tab does not show: %v", tab, err)
	}
}

// assertFocus: the element the step is about is in the page, inside the
// viewport, highlighted, and shows the state a native render of
// the same lab gives.
func assertFocus(t *testing.T, p *watchedPage, native *lessons.Session) {
	t.Helper()
	st := native.Status()
	form := strings.TrimSpace(strings.SplitN(st.Focus, " = ", 2)[0])
	if form == "" {
		return
	}
	want, ok := nativeFocusState(t, native, form)
	if !ok {
		t.Fatalf("step %d: a native render has no element for focus %q", st.Step+1, form)
	}
	got, err := p.Evaluate(`(sel) => {
		const el = document.querySelector("#cluster-view " + sel);
		if (!el) return null;
		const boxes = el.getClientRects().length ? [el] : Array.from(el.children);
		let top = Infinity, bottom = -Infinity, left = Infinity, right = -Infinity;
		for (const b of boxes) {
			const r = b.getBoundingClientRect();
			top = Math.min(top, r.top); bottom = Math.max(bottom, r.bottom);
			left = Math.min(left, r.left); right = Math.max(right, r.right);
		}
		const others = Array.from(document.querySelectorAll("#cluster-view .lesson-focus")).filter((x) => !boxes.includes(x)).length;
		// The part of the viewport the cluster shows in: its own
		// scrolling column beside (or under) a lesson, else the page.
		const col = el.closest(".cluster");
		let view = { top: 0, bottom: innerHeight };
		if (col && col.scrollHeight > col.clientHeight && getComputedStyle(col).overflowY !== "visible") {
			const c = col.getBoundingClientRect();
			view = { top: Math.max(0, c.top), bottom: Math.min(innerHeight, c.bottom) };
		}
		// The cluster's controls stay at the top of its column as it
		// scrolls: what they cover is not in sight.
		const controls = document.querySelector("#cluster-view .controls");
		if (controls && getComputedStyle(controls).position === "sticky") {
			const c = controls.getBoundingClientRect();
			if (c.bottom > view.top && c.top < view.bottom) view.top = Math.max(view.top, c.bottom);
		}
		return { state: el.getAttribute("data-focus-state"), lit: boxes.some((b) => b.classList.contains("lesson-focus")), others,
			top, bottom, left, right, width: innerWidth, height: innerHeight, viewTop: view.top, viewBottom: view.bottom,
			scroll: col ? col.scrollTop + "/" + (col.scrollHeight - col.clientHeight) : "" };
	}`, lessons.FocusSelector(form))
	if err != nil {
		t.Fatal(err)
	}
	if got == nil {
		t.Fatalf("step %d: the page has no element for focus %q", st.Step+1, form)
	}
	m := got.(map[string]any)
	num := func(k string) float64 {
		switch v := m[k].(type) {
		case float64:
			return v
		case int:
			return float64(v)
		}
		return -1
	}
	if m["state"] != want {
		t.Errorf("step %d: focus %q shows %q in the page, a native render %q", st.Step+1, form, m["state"], want)
	}
	if m["lit"] != true {
		t.Errorf("step %d: focus %q is not highlighted", st.Step+1, form)
	}
	if n := num("others"); n != 0 {
		t.Errorf("step %d: %v other elements are highlighted besides focus %q", st.Step+1, n, form)
	}
	// Inside the viewport, or, when taller than the part of it the
	// cluster shows in, its top (where a panel's title says what it is)
	// in sight there.
	top, bottom, left, right := num("top"), num("bottom"), num("left"), num("right")
	viewTop, viewBottom := num("viewTop"), num("viewBottom")
	tall := bottom-top > viewBottom-viewTop
	if top < viewTop-1 || left < 0 || right > num("width") || (!tall && bottom > viewBottom+1) || top >= viewBottom-40 {
		t.Errorf("step %d: focus %q is at top %.0f bottom %.0f left %.0f right %.0f: not inside the %vx%v viewport's cluster (%.0f to %.0f; its column scrolled %v)",
			st.Step+1, form, top, bottom, left, right, m["width"], m["height"], viewTop, viewBottom, m["scroll"])
	}
}

// nativeFocusState renders the native lab's view and reads the focused
// element's data-focus-state.
func nativeFocusState(t *testing.T, native *lessons.Session, form string) (string, bool) {
	t.Helper()
	view, err := web.RenderString(context.Background(), web.ClusterView(native.Lab().View()))
	if err != nil {
		t.Fatal(err)
	}
	tag := regexp.MustCompile(`<[a-zA-Z][^>]*\sdata-focus="` + regexp.QuoteMeta(html.EscapeString(form)) + `"[^>]*>`).FindString(view)
	if tag == "" {
		return "", false
	}
	m := regexp.MustCompile(`\sdata-focus-state="([^"]*)"`).FindStringSubmatch(tag)
	if m == nil {
		return "", true
	}
	return html.UnescapeString(m[1]), true
}

// snapshot is the transcript and the cluster as drawn, without the
// highlights the player and layout.js add. The controllers' cards are in
// it: the quorum runs in virtual time, so its epochs and offsets are part
// of what a replay reproduces.
func snapshot(t *testing.T, p *watchedPage) string {
	t.Helper()
	v, err := p.Evaluate(`() => {
		const view = document.getElementById("cluster-view").cloneNode(true);
		for (const el of view.querySelectorAll(".lesson-focus, .just-changed")) el.classList.remove("lesson-focus", "just-changed");
		// Attributes in name order: an element the update morphed has the
		// ones it gained after those it kept, a fresh one has the server's order.
		for (const el of [view, ...view.querySelectorAll("*")]) {
			const attrs = Array.from(el.attributes, (a) => [a.name, a.value]).sort((a, b) => (a[0] < b[0] ? -1 : 1));
			for (const [n] of attrs) el.removeAttribute(n);
			for (const [n, v] of attrs) el.setAttribute(n, v);
		}
		return document.getElementById("transcript").innerHTML + "\n----\n" + view.outerHTML;
	}`)
	if err != nil {
		t.Fatal(err)
	}
	return v.(string)
}

// firstDifference shows where two snapshots part.
func firstDifference(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-300)
	return fmt.Sprintf("at byte %d:\nfirst:  …%s…\nsecond: …%s…", i, a[from:min(len(a), i+300)], b[from:min(len(b), i+300)])
}

// firstWords is the beginning of a Markdown sentence up to its first
// markup, to find it in the rendered text.
func firstWords(md string) string {
	if i := strings.IndexAny(md, "`*_[<"); i >= 0 {
		md = md[:i]
	}
	return strings.TrimSpace(md)
}

// shot saves what a learner sees at 1280x720, not the whole page.
func shot(t *testing.T, p *watchedPage, name string) {
	t.Helper()
	if err := os.MkdirAll("out", 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Screenshot(playwright.PageScreenshotOptions{
		Path: playwright.String(filepath.Join("out", name+".png")), Animations: playwright.ScreenshotAnimationsDisabled,
	}); err != nil {
		t.Log("screenshot:", err)
	}
}
