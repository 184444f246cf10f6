package e2e

import (
	"fmt"
	"testing"

	"github.com/playwright-community/playwright-go"

	"github.com/loglab/loglab/lessons"
)

// The catalogue lists its modules' headings at a phone's, a laptop's and
// a wide screen's size without sideways scrolling, and a prerequisite's
// link ("after 4, 5") brings its card into view, marked.
func TestCatalogueModulesFitEverySize(t *testing.T) {
	t.Parallel()
	all, err := lessons.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range [][2]int{{390, 844}, {1280, 720}, {1920, 1080}} {
		name := fmt.Sprintf("catalogue-%dx%d", size[0], size[1])
		p := newPageWith(t, playwright.BrowserNewContextOptions{Locale: playwright.String("en-US"), Viewport: &playwright.Size{Width: size[0], Height: size[1]}})
		if _, err := p.Goto(p.base + "/"); err != nil {
			t.Fatal(err)
		}
		if err := expect.Locator(p.Locator(".lesson-module .module-title")).ToHaveCount(len(lessons.Modules())); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := expect.Locator(p.Locator(".lesson-module .lesson-card")).ToHaveCount(len(all)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		widths, err := p.Evaluate(`() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]`)
		if err != nil {
			t.Fatal(err)
		}
		if w := widths.([]interface{}); toF(w[0]) > toF(w[1]) {
			wide, _ := p.Evaluate(widestElements)
			t.Errorf("%s: the page is %v px wide in a %v px viewport; widest: %v", name, w[0], w[1], wide)
		}
		// Lesson 6 comes after 4 and 5: its link to 4 shows 4's card (the
		// link is above the card's own, which covers the card).
		link := p.Locator(`.lesson-card[data-lesson-id="high-watermark"] .lesson-after [data-l="en"] a[data-after="acks1-leader-crash"]`)
		if err := expect.Locator(link).ToHaveText("4"); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := link.Click(playwright.LocatorClickOptions{Timeout: playwright.Float(10000)}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		target := p.Locator(`.lesson-card[data-lesson-id="acks1-leader-crash"]`)
		if err := expect.Locator(target).ToBeInViewport(); err != nil {
			t.Errorf("%s: lesson 4's card is not in view after its link: %v", name, err)
		}
		if matched, _ := target.Evaluate(`el => el.matches(":target")`, nil); matched != true {
			t.Errorf("%s: lesson 4's card is not the page's target after its link", name)
		}
		shot(t, p, name)
	}
}
