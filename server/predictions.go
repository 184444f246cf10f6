package server

import (
	"fmt"
	"slices"
)

// Each participant predicts. On a cluster playing a lesson, the driver (the
// instructor on /live, the owner on a participant's cluster) moves the
// lesson and reveals each question by answering it; everyone else watching
// answers the question for themselves before the reveal, and each page
// judges its own pick against the revealed value. roomPredictions holds
// those picks for the question asked now, as a pure state machine the live
// session feeds (predict.go does the wiring): it never touches the engine,
// so the transcript is the same whatever the room picked.
//
// A round is one asking of one question: a new step, or the same step
// asked again after a reset that followed the reveal, starts a new round
// with no picks. Pages tell rounds apart by their number, which the lesson
// status carries, so a pick from an earlier round is never shown as an
// answer to this one.
type roomPredictions struct {
	round    int
	lesson   string
	step     int
	choices  []string // the question's values, in the lesson's order; nil: nothing asked
	revealed bool
	// picks is each participant's choice this round (by ownerKey); pages
	// how many pages of each participant watch now. counts[i] is how many
	// participants watching now picked choices[i].
	picks  map[string]string
	pages  map[string]int
	counts []int
}

// maxPicks bounds the picks one round keeps: a participant identity costs
// a page nothing to make, and a page's identity is fixed only for one
// connection. Past it, picks of participants who left are forgotten, and
// a new participant's pick is refused if every one is still watching
// (more than the server's pages: never in a real room).
const maxPicks = 4096

// tally is what the driver sees of the room's answers: how many
// participants watching now picked each choice (Counts in Choices' order),
// how many answered, and how many watch.
type tally struct {
	Type     string   `json:"type"` // "tally"
	Round    int      `json:"round"`
	Lesson   string   `json:"lesson"`
	Step     int      `json:"step"`
	Choices  []string `json:"choices"`
	Counts   []int    `json:"counts"`
	Answered int      `json:"answered"`
	Watching int      `json:"watching"`
	Revealed bool     `json:"revealed"`
}

func newRoomPredictions() *roomPredictions {
	return &roomPredictions{picks: map[string]string{}, pages: map[string]int{}}
}

// Sync follows the lesson: at (lesson, step) with the question's choices
// (nil: the step asks nothing, or no lesson is open: lesson ""), asking
// until the reveal. It reports whether a new round started.
func (p *roomPredictions) Sync(lesson string, step int, choices []string, asking bool) (newRound bool) {
	sameQuestion := lesson == p.lesson && step == p.step && slices.Equal(choices, p.choices)
	// The same question asked again after its reveal (a reset, a goto to
	// the same step) is a new round: the room predicts again.
	if !sameQuestion || asking && p.revealed {
		p.StepChanged(lesson, step, choices)
		newRound = true
	}
	if !asking && p.choices != nil {
		p.Reveal()
	}
	return newRound
}

// StepChanged starts a new round on the question (choices nil: none).
func (p *roomPredictions) StepChanged(lesson string, step int, choices []string) {
	p.round++
	p.lesson, p.step = lesson, step
	p.choices = slices.Clone(choices)
	p.revealed = false
	clear(p.picks)
	p.counts = make([]int, len(choices))
}

// Reveal closes the round's picks: the driver has answered, and the
// value is on every page.
func (p *roomPredictions) Reveal() { p.revealed = true }

// Pick records who's choice, replacing an earlier one of theirs (a
// participant may change their mind until the reveal).
func (p *roomPredictions) Pick(who, value string) error {
	switch {
	case who == "":
		return fmt.Errorf("a prediction needs a participant's identity: reload the page (it carries one in a cookie) or send a participant's Bearer token")
	case p.choices == nil && p.lesson == "":
		return fmt.Errorf("no lesson is open: nothing to predict")
	case p.choices == nil:
		return fmt.Errorf("this step asks nothing to predict")
	case p.revealed:
		return fmt.Errorf("the answer is revealed already: predictions for this step are closed")
	}
	i := slices.Index(p.choices, value)
	if i < 0 {
		return fmt.Errorf("%.40q is not one of the choices", value)
	}
	old, had := p.picks[who]
	if !had && len(p.picks) >= maxPicks {
		p.forgetDeparted()
		if len(p.picks) >= maxPicks {
			return fmt.Errorf("this question has %d predictions already, the most one round keeps", maxPicks)
		}
	}
	p.picks[who] = value
	if p.pages[who] > 0 {
		if had {
			p.counts[slices.Index(p.choices, old)]--
		}
		p.counts[i]++
	}
	return nil
}

// forgetDeparted drops the picks of participants no page of whom watches.
func (p *roomPredictions) forgetDeparted() {
	for who := range p.picks {
		if p.pages[who] == 0 {
			delete(p.picks, who)
		}
	}
}

// PickOf is who's choice this round ("" if none).
func (p *roomPredictions) PickOf(who string) string { return p.picks[who] }

// Join counts a page of participant who (a viewer who does not drive);
// their pick counts again when their first page comes back.
func (p *roomPredictions) Join(who string) {
	if who == "" {
		return
	}
	p.pages[who]++
	if p.pages[who] == 1 {
		p.count(who, 1)
	}
}

// Leave is Join undone, when the page closes.
func (p *roomPredictions) Leave(who string) {
	if who == "" || p.pages[who] == 0 {
		return
	}
	p.pages[who]--
	if p.pages[who] == 0 {
		delete(p.pages, who)
		p.count(who, -1)
	}
}

func (p *roomPredictions) count(who string, d int) {
	if v, ok := p.picks[who]; ok {
		if i := slices.Index(p.choices, v); i >= 0 {
			p.counts[i] += d
		}
	}
}

// Asking reports whether the round has a question (revealed or not).
func (p *roomPredictions) Asking() bool { return p.choices != nil }

// Tally is the round's count of the participants watching now.
func (p *roomPredictions) Tally() tally {
	t := tally{Type: "tally", Round: p.round, Lesson: p.lesson, Step: p.step,
		Choices: slices.Clone(p.choices), Counts: slices.Clone(p.counts), Watching: len(p.pages), Revealed: p.revealed}
	if t.Choices == nil {
		t.Choices, t.Counts = []string{}, []int{}
	}
	for _, n := range p.counts {
		t.Answered += n
	}
	return t
}
