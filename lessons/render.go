package lessons

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark"
)

// Rendered is a lesson as the player shows it: the prose in both languages
// as HTML from its Markdown, and no answers. The right choice of a
// prediction is not in it; the engine tells it after the learner answered.
type Rendered struct {
	ID      string         `json:"id"`
	Order   int            `json:"order"`
	Level   string         `json:"level"`
	Minutes int            `json:"minutes"`
	Title   HTML           `json:"title"`
	Goals   []HTML         `json:"goals"`
	Steps   []RenderedStep `json:"steps"`
	// Native: the lesson needs the workshop server (`mode: native`).
	Native bool `json:"native,omitempty"`
	// Module is the catalogue module's id; After the ids of the lessons
	// to play first (`module:`, `after:`).
	Module string   `json:"module,omitempty"`
	After  []string `json:"after,omitempty"`
}

// HTML is one piece of prose rendered in both languages.
type HTML struct {
	En string `json:"en"`
	Zh string `json:"zh"`
}

// RenderedStep is one step's prose.
type RenderedStep struct {
	Name     string           `json:"name"`
	Goal     bool             `json:"goal"`
	Say      []HTML           `json:"say"`
	Hints    []HTML           `json:"hints"`
	Focus    string           `json:"focus,omitempty"`
	Question *HTML            `json:"question,omitempty"`
	Choices  []RenderedChoice `json:"choices,omitempty"`
}

// RenderedChoice is a choice of a prediction and why it is right or wrong.
type RenderedChoice struct {
	Value string `json:"value"`
	Text  HTML   `json:"text"`
	Why   HTML   `json:"why"`
}

// Render turns a lesson into what the player shows. Lesson Markdown is the
// trainer's own and goldmark leaves raw HTML out by default, so a lesson
// cannot put script into the page.
func Render(l *Lesson) Rendered {
	r := Rendered{ID: l.ID, Order: l.Order, Level: l.Level, Minutes: l.Minutes, Title: inline(l.Title), Native: l.Native, Module: l.Module, After: l.After}
	for _, g := range l.Goals {
		r.Goals = append(r.Goals, inline(g))
	}
	for _, s := range l.Steps {
		rs := RenderedStep{Name: s.Name, Goal: s.Goal, Focus: s.Focus}
		for _, p := range s.Say {
			rs.Say = append(rs.Say, block(p))
		}
		for _, h := range s.Hints {
			rs.Hints = append(rs.Hints, inline(h))
		}
		if pr := s.Predict; pr != nil {
			q := inline(pr.Question)
			rs.Question = &q
			for _, c := range pr.Choices {
				rs.Choices = append(rs.Choices, RenderedChoice{Value: c.Value, Text: inline(c.Text), Why: inline(c.Why)})
			}
		}
		r.Steps = append(r.Steps, rs)
	}
	return r
}

// block and inline show a step's engine values (`{CHECK ARGS = VALUE}`)
// as their values.
func block(t Text) HTML {
	t = resolveText(t)
	return HTML{En: markdown(t.En), Zh: markdown(t.Zh)}
}

// inline is Markdown for a line inside other markup: without the <p>.
func inline(t Text) HTML {
	t = resolveText(t)
	strip := func(s string) string {
		s = strings.TrimSpace(markdown(s))
		s = strings.TrimPrefix(s, "<p>")
		return strings.TrimSuffix(s, "</p>")
	}
	return HTML{En: strip(t.En), Zh: strip(t.Zh)}
}

// Title is a lesson's title as the player and the catalogue show it,
// without rendering the rest of the lesson.
func Title(l *Lesson) HTML { return inline(l.Title) }

func markdown(src string) string {
	var buf bytes.Buffer
	if err := goldmark.Convert([]byte(src), &buf); err != nil {
		// goldmark fails only on a failing writer; a buffer never does.
		return src
	}
	return buf.String()
}

// Entry is one lesson as a catalogue lists it: the browser lab's
// loglab.lessons() and the live server's GET /api/lessons give the same.
type Entry struct {
	ID      string `json:"id"`
	Order   int    `json:"order"`
	Level   string `json:"level"`
	Minutes int    `json:"minutes"`
	Title   HTML   `json:"title"`
	Steps   int    `json:"steps"`
	Native  bool   `json:"native,omitempty"`
	// Module is the catalogue module's id, After the ids of the lessons
	// to play first.
	Module string   `json:"module,omitempty"`
	After  []string `json:"after,omitempty"`
}

// Catalogue lists every embedded lesson in its order.
func Catalogue() ([]Entry, error) {
	all, err := All()
	if err != nil {
		return nil, err
	}
	out := make([]Entry, len(all))
	for i, l := range all {
		out[i] = EntryOf(Render(l))
	}
	return out, nil
}

// EntryOf is a rendered lesson's catalogue entry.
func EntryOf(r Rendered) Entry {
	return Entry{ID: r.ID, Order: r.Order, Level: r.Level, Minutes: r.Minutes, Title: r.Title, Steps: len(r.Steps), Native: r.Native, Module: r.Module, After: r.After}
}
