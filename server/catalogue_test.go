package server

import (
	"fmt"
	"html"
	"net/http"
	"strings"
	"testing"

	"github.com/loglab/loglab/lessons"
)

// The landing page leads with every lesson, each a link that opens it in
// the browser lab, above the sandboxes; /lab?lesson=ID lays the lab out
// for that lesson, and an unknown id is the plain sandbox.
func TestLandingPageListsTheLessonsFirst(t *testing.T) {
	_, ts := newTestServer(t)
	all, err := lessons.All()
	if err != nil {
		t.Fatal(err)
	}
	code, body := get(t, ts.URL+"/")
	if code != http.StatusOK {
		t.Fatalf("GET /: %d", code)
	}
	sandboxes := strings.Index(body, `class="choice" href="/lab"`)
	for _, l := range all {
		link := strings.Index(body, `href="/lab?lesson=`+html.EscapeString(l.ID)+`"`)
		if link < 0 || link > sandboxes {
			t.Errorf("lesson %s: link at %d, the sandboxes at %d", l.ID, link, sandboxes)
		}
		// A lesson that needs the workshop server says so on its card.
		card := body[link:]
		if end := strings.Index(card, "</li>"); end > 0 {
			card = card[:end]
		}
		if got := strings.Contains(card, `class="native-badge"`); got != l.Native {
			t.Errorf("lesson %s (native %v): the card's native-mode badge drawn: %v", l.ID, l.Native, got)
		}
		title := lessons.Render(l).Title
		if !strings.Contains(body, title.En) || !strings.Contains(body, title.Zh) {
			t.Errorf("lesson %s: the title is not there in both languages", l.ID)
		}
	}

	id := all[0].ID
	if _, body := get(t, ts.URL+"/lab?lesson="+id+"&step=2"); !strings.Contains(body, `data-lesson="`+id+`"`) || !strings.Contains(body, `id="lesson"`) {
		t.Errorf("/lab?lesson=%s is not laid out for the lesson", id)
	}
	if _, body := get(t, ts.URL+"/lab?lesson=no-such-lesson"); !strings.Contains(body, `data-lesson=""`) {
		t.Error("/lab with an unknown lesson is not the sandbox")
	}
}

// The landing page lists the lessons under their modules, in the modules'
// order, each module's lessons in the catalogue's order and its minutes
// added up; each card links the lessons it comes after.
func TestLandingPageGroupsTheLessonsByModule(t *testing.T) {
	_, ts := newTestServer(t)
	all, err := lessons.All()
	if err != nil {
		t.Fatal(err)
	}
	_, body := get(t, ts.URL+"/")
	order := map[string]int{}
	for _, l := range all {
		order[l.ID] = l.Order
	}
	prev := -1
	for _, m := range lessons.Modules() {
		start := strings.Index(body, `<section class="lesson-module" data-module="`+m.ID+`">`)
		if start < prev {
			t.Fatalf("module %s is missing or out of order (at %d, the previous at %d)", m.ID, start, prev)
		}
		prev = start
		section := body[start:]
		section = section[:strings.Index(section, "</ol>")]
		minutes, n := 0, 0
		for _, l := range all {
			in := strings.Contains(section, `data-lesson-id="`+l.ID+`"`)
			if in != (l.Module == m.ID) {
				t.Errorf("lesson %s (module %s) listed under %s: %v", l.ID, l.Module, m.ID, in)
			}
			if in {
				minutes += l.Minutes
				n++
			}
		}
		if !strings.Contains(section, html.EscapeString(m.Name.En)) || !strings.Contains(section, html.EscapeString(m.Name.Zh)) {
			t.Errorf("module %s's heading does not name it in both languages", m.ID)
		}
		if want := fmt.Sprintf(" · %d min<", minutes); !strings.Contains(section, want) {
			t.Errorf("module %s's heading does not say %q", m.ID, want)
		}
	}
	for _, l := range all {
		card := body[strings.Index(body, `data-lesson-id="`+l.ID+`"`):]
		card = card[:strings.Index(card, "</li>")]
		var links []string
		for _, id := range l.After {
			links = append(links, fmt.Sprintf(`<a href="#lesson-%s" data-after="%s">%d</a>`, id, id, order[id]))
		}
		if got := strings.Count(card, "data-after="); got != 2*len(l.After) {
			t.Errorf("lesson %s: %d prerequisite links, want %d in each language", l.ID, got, 2*len(l.After))
		}
		if len(links) > 0 && !strings.Contains(card, "after "+strings.Join(links, ", ")) {
			t.Errorf("lesson %s does not say after %v:\n%s", l.ID, l.After, card)
		}
	}
	// Lesson 6 builds on lessons 4 and 5.
	if !strings.Contains(body, `after <a href="#lesson-acks1-leader-crash" data-after="acks1-leader-crash">4</a>, <a href="#lesson-acks-all-min-isr" data-after="acks-all-min-isr">5</a>`) {
		t.Error(`the high watermark lesson's card does not say "after 4, 5"`)
	}
}
