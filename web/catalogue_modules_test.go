package web

import (
	"context"
	"regexp"
	"strings"
	"testing"
)

// The catalogue lists the cards under their modules' headings, in the
// order given, with each module's minutes added up; a card names the
// lessons to play first as links to their cards; the native module says
// what native mode is, once.
func TestCatalogueGroupsTheLessonsByModule(t *testing.T) {
	storage := CatalogueModule{ID: "storage", En: "Storage", Zh: "存储"}
	replication := CatalogueModule{ID: "replication", En: "Replication", Zh: "副本复制"}
	native := CatalogueModule{ID: "native", En: "The workshop server", Zh: "workshop 服务器"}
	html, err := RenderString(context.Background(), LessonCatalogue([]LessonCard{
		{Number: 1, ID: "log", Level: "beginner", Minutes: 12, Steps: 6, TitleEn: "A log", TitleZh: "日志", Module: storage},
		{Number: 9, ID: "retention", Level: "intermediate", Minutes: 15, Steps: 5, TitleEn: "Retention", TitleZh: "保留策略", Module: storage, After: []LessonRef{{1, "log"}}},
		{Number: 4, ID: "acks1", Level: "beginner", Minutes: 10, Steps: 5, TitleEn: "acks=1", TitleZh: "acks=1", Module: replication, After: []LessonRef{{1, "log"}}},
		{Number: 5, ID: "acks-all", Level: "beginner", Minutes: 10, Steps: 4, TitleEn: "acks=all", TitleZh: "acks=all", Module: replication, After: []LessonRef{{4, "acks1"}}},
		{Number: 6, ID: "hw", Level: "intermediate", Minutes: 12, Steps: 5, TitleEn: "HW", TitleZh: "HW", Module: replication, After: []LessonRef{{4, "acks1"}, {5, "acks-all"}}},
		{Number: 24, ID: "zero-copy", Level: "advanced", Minutes: 15, Steps: 5, TitleEn: "Zero-copy", TitleZh: "零拷贝", Module: native, Native: true, After: []LessonRef{{1, "log"}}},
	}))
	if err != nil {
		t.Fatal(err)
	}
	// Each module is a section: its heading, then its cards, in order.
	sections := regexp.MustCompile(`(?s)<section class="lesson-module" data-module="([a-z-]*)">(.*?)</section>`).FindAllStringSubmatch(html, -1)
	var got []string
	for _, s := range sections {
		cards := regexp.MustCompile(`data-lesson-id="([^"]+)"`).FindAllStringSubmatch(s[2], -1)
		ids := []string{}
		for _, c := range cards {
			ids = append(ids, c[1])
		}
		got = append(got, s[1]+": "+strings.Join(ids, " "))
	}
	want := []string{"storage: log retention", "replication: acks1 acks-all hw", "native: zero-copy"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Fatalf("modules and their cards:\n got  %q\n want %q\n%s", got, want, html)
	}
	// Each heading names the module and its total minutes, both languages.
	for i, w := range []struct{ name, en, zh string }{
		{"Storage", "2 lessons · 27 min", "2 节课 · 27 分钟"},
		{"Replication", "3 lessons · 32 min", "3 节课 · 32 分钟"},
		{"The workshop server", "1 lesson · 15 min", "1 节课 · 15 分钟"},
	} {
		head := sections[i][2]
		if !strings.Contains(head, `<h3 class="module-title">`) || !strings.Contains(head, ">"+w.name+"<") ||
			!strings.Contains(head, ">"+w.en+"<") || !strings.Contains(head, ">"+w.zh+"<") {
			t.Errorf("module %s's heading does not say %q / %q:\n%s", sections[i][1], w.en, w.zh, head)
		}
	}
	// "after 4, 5": links to the prerequisites' cards, which carry the ids.
	hw := cardHTML(t, html, "hw")
	if !regexp.MustCompile(`after\s*<a href="#lesson-acks1" data-after="acks1">4</a>,\s*<a href="#lesson-acks-all" data-after="acks-all">5</a>`).MatchString(hw) {
		t.Errorf("lesson 6's card does not say after 4, 5 with links:\n%s", hw)
	}
	if !regexp.MustCompile(`先学第\s*<span><a href="#lesson-acks1" data-after="acks1">4</a>、<a href="#lesson-acks-all" data-after="acks-all">5</a></span>\s*课`).MatchString(hw) {
		t.Errorf("lesson 6's card does not say 先学第 4、5 课 with links:\n%s", hw)
	}
	for _, id := range []string{"log", "acks1", "acks-all"} {
		if !strings.Contains(html, `<li class="lesson-card" id="lesson-`+id+`"`) {
			t.Errorf("no card has the anchor lesson-%s that a link points at", id)
		}
	}
	if strings.Contains(cardHTML(t, html, "log"), "lesson-after") {
		t.Error("lesson 1, which has no prerequisite, names some")
	}
	// Native mode is explained once, in the module that holds the native
	// lesson, in both languages.
	if n := strings.Count(html, `class="native-note"`); n != 1 || !strings.Contains(sections[2][2], `class="native-note"`) {
		t.Errorf("%d native-mode notes; want one, in the native module", n)
	}
	if !strings.Contains(html, "<code>make run</code>") || !strings.Contains(html, "原生模式</strong>") || !strings.Contains(html, "Lessons menu of the live page") {
		t.Errorf("the native-mode note does not say what native mode is, in both languages:\n%s", sections[2][2])
	}
}

// cardHTML is one card's markup, found by its lesson id.
func cardHTML(t *testing.T, html, id string) string {
	t.Helper()
	start := strings.Index(html, `data-lesson-id="`+id+`"`)
	if start < 0 {
		t.Fatalf("no card for %s", id)
	}
	end := strings.Index(html[start:], "</li>")
	return html[start : start+end]
}
