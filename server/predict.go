package server

import (
	"encoding/json"
	"strings"

	"github.com/loglab/loglab/lessons"
)

// The wiring of roomPredictions (predictions.go) into the live session:
// who predicts, who is told what, and when a round starts. Everything
// here runs with the session's mutex held, as lesson actions do, and
// sends with enqueue, which never blocks: a page flooding predictions is
// refused by its own rate limiter and costs the others a map update and a
// message to the drivers' pages, coalesced if they fall behind.
//
// Who is told what:
//   - a participant's pages receive their own pick, privately
//     (predictMessage), when they pick and when they (re)connect;
//   - the drivers' pages receive the tally (tally) as picks come in and
//     participants come and go; nobody else does, so a participant cannot
//     follow the crowd;
//   - every page receives the lesson status with the round it belongs to
//     (lessonMessage.Round); Status.Answer is the driver's answer, which
//     is the reveal, and each participant's page judges its own pick.

// predictRequest is a participant's prediction:
//
//	{"type":"predict","value":"V","at":N}
//
// at, the step the page showed, is optional as for lesson actions: a pick
// that arrives after the lesson moved on is refused, not counted for the
// next question.
type predictRequest struct {
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
	At    json.RawMessage `json:"at"`
}

// predictMessage is a participant's own pick this round ("" none), sent to
// their pages alone; Error says why a prediction was refused.
type predictMessage struct {
	Type   string `json:"type"` // "predict"
	Round  int    `json:"round"`
	Lesson string `json:"lesson,omitempty"`
	Step   int    `json:"step"`
	Pick   string `json:"pick"`
	Error  string `json:"error,omitempty"`
}

// viewer is who a page is to the lesson: a driver (who moves it and
// reveals), or a participant who predicts (who: their ownerKey; "" for a
// client without a participant's identity, who may watch but not predict).
type viewer struct {
	who    string
	driver bool
}

func viewerOf(r role, s *liveSession) viewer {
	if r.mayDrive(s) {
		return viewer{driver: true}
	}
	return viewer{who: r.participant}
}

// preds is the session's predictions, made on first use (s.mu held).
func (s *liveSession) preds() *roomPredictions {
	if s.predictions == nil {
		s.predictions = newRoomPredictions()
	}
	return s.predictions
}

// syncPredictions follows the lesson's status (s.mu held): a new step, a
// question asked again, the reveal, the lesson closed. It reports whether
// a new round started.
func (s *liveSession) syncPredictions() bool {
	p := s.preds()
	if s.lesson == nil {
		return p.Sync("", 0, nil, false)
	}
	st := s.lesson.Status()
	choices := p.choices
	if st.Lesson != p.lesson || st.Step != p.step {
		choices = questionChoices(st)
	}
	return p.Sync(st.Lesson, st.Step, choices, st.Phase == lessons.PhaseAsk)
}

// questionChoices are the values of the step's question, nil if it asks
// none.
func questionChoices(st lessons.Status) []string {
	l, err := lessons.Find(st.Lesson)
	if err != nil || st.Step < 0 || st.Step >= len(l.Steps) || l.Steps[st.Step].Predict == nil {
		return nil
	}
	var out []string
	for _, c := range l.Steps[st.Step].Predict.Choices {
		out = append(out, c.Value)
	}
	return out
}

// publishLesson sends every page the lesson's status after it changed
// (s.mu held), and the drivers a fresh tally when a new round starts in
// front of participants.
func (s *liveSession) publishLesson() {
	newRound := s.syncPredictions()
	s.publish(s.lessonMessage(""))
	if newRound {
		if t := s.preds().Tally(); t.Watching > 0 || t.Answered > 0 {
			s.sendTally()
		}
	}
}

// sendTally sends the tally to every driver's page (s.mu held).
func (s *liveSession) sendTally() {
	b, err := json.Marshal(s.preds().Tally())
	if err != nil {
		panic(err) // strings and ints
	}
	for _, sub := range s.subscribers {
		if sub.driver {
			sub.enqueue(queued{msg: b, kind: "tally"})
		}
	}
}

// ownPick is who's predictMessage (s.mu held).
func (s *liveSession) ownPick(who, refusal string) []byte {
	p := s.preds()
	m := predictMessage{Type: "predict", Round: p.round, Lesson: p.lesson, Step: p.step, Pick: p.PickOf(who), Error: refusal}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

// joined counts a page that has just subscribed and catches it up with
// what the lesson status does not carry (s.mu held, after the status):
// a participant their own pick, a driver the tally.
func (s *liveSession) joined(sub *subscriber) {
	p := s.preds()
	if sub.driver {
		// Nobody watching and nothing picked is what a driver's page
		// draws without a tally.
		if t := p.Tally(); s.lesson != nil && p.Asking() && (t.Watching > 0 || t.Answered > 0) {
			s.sendTallyTo(sub)
		}
		return
	}
	if sub.who == "" {
		return // watches, does not predict: not counted
	}
	p.Join(sub.who)
	if p.PickOf(sub.who) != "" {
		s.send(sub, s.ownPick(sub.who, ""))
	}
	s.watchersChanged()
}

// left is joined undone, when the page unsubscribes (s.mu held).
func (s *liveSession) left(sub *subscriber) {
	if sub.driver || sub.who == "" {
		return
	}
	s.preds().Leave(sub.who)
	s.watchersChanged()
}

// watchersChanged tells the drivers the new count while a question waits
// for its reveal.
func (s *liveSession) watchersChanged() {
	if p := s.preds(); s.lesson != nil && p.Asking() && !p.revealed {
		s.sendTally()
	}
}

func (s *liveSession) sendTallyTo(sub *subscriber) {
	b, err := json.Marshal(s.preds().Tally())
	if err != nil {
		panic(err)
	}
	sub.enqueue(queued{msg: b, kind: "tally"})
}

// predict records a participant's pick for the step the room is asked,
// echoes it to their pages alone and the tally to the drivers'. A refusal
// goes to sub alone, with the pick they hold.
func (s *liveSession) predict(sub *subscriber, req predictRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	refuse := func(why string) { s.send(sub, s.ownPick(sub.who, why)) }
	switch {
	case s.closedLocked():
		refuse(strings.TrimPrefix(errClusterClosed, "error: "))
		return
	case sub.driver:
		refuse("you drive this lesson: your own answer is the reveal (it runs the step for everyone)")
		return
	case s.lesson == nil:
		refuse("no lesson is open: nothing to predict")
		return
	}
	if len(req.At) > 0 {
		at, err := parseStep(req.At)
		if err == nil {
			err = s.lesson.At(at)
		}
		if err != nil {
			refuse(err.Error())
			return
		}
	}
	v, err := parseValue(req.Value)
	if err == nil {
		err = s.preds().Pick(sub.who, v)
	}
	if err != nil {
		refuse(err.Error())
		return
	}
	mine := s.ownPick(sub.who, "")
	for _, x := range s.subscribers {
		if x.who == sub.who && !x.driver {
			s.send(x, mine)
		}
	}
	s.sendTally()
}

// handlePredict takes a page's prediction; a malformed or rate-limited
// one is refused to its sender alone.
func (s *Server) handlePredict(p *page, data []byte, allowed bool) {
	var req predictRequest
	refuse := func(msg string) {
		p.sess.mu.Lock()
		defer p.sess.mu.Unlock()
		p.sess.send(p.sub, p.sess.ownPick(p.sub.who, msg))
	}
	switch {
	case json.Unmarshal(data, &req) != nil:
		refuse(`expected {"type":"predict","value":"V","at":N}`)
	case !allowed:
		refuse(strings.TrimPrefix(rateLimitMessage("page"), "error: ") + " (a prediction counts as one)")
	default:
		p.sess.predict(p.sub, req)
	}
}
