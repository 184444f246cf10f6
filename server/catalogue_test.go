package server

import (
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
