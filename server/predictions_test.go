package server

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// roomPredictions' decisions, one table: each case plays a script of
// operations and checks the refusals, the tally and each participant's
// pick after it. After every operation the incremental counts must equal
// a count made afresh from the picks of the participants watching.
func TestRoomPredictions(t *testing.T) {
	abc := []string{"a", "b", "c"}
	type op struct {
		do      string // sync, ask, reveal, join, leave, pick
		who     string
		value   string
		lesson  string
		step    int
		choices []string
		wantErr string // for pick: "" accepted, else a part of the refusal
	}
	sync := func(lesson string, step int, choices []string, asking bool) op {
		do := "sync"
		if asking {
			do = "ask"
		}
		return op{do: do, lesson: lesson, step: step, choices: choices}
	}
	pick := func(who, v, wantErr string) op { return op{do: "pick", who: who, value: v, wantErr: wantErr} }
	join := func(who string) op { return op{do: "join", who: who} }
	leave := func(who string) op { return op{do: "leave", who: who} }
	for _, tc := range []struct {
		name      string
		ops       []op
		counts    []int
		answered  int
		watching  int
		picks     map[string]string
		round     int
		revealed  bool
		newRounds int // how many syncs started a round
	}{
		{
			name:   "each participant's pick counts once, the last one",
			ops:    []op{sync("l", 1, abc, true), join("A"), join("B"), join("C"), pick("A", "a", ""), pick("B", "b", ""), pick("C", "b", ""), pick("C", "c", "")},
			counts: []int{1, 1, 1}, answered: 3, watching: 3, round: 1, newRounds: 1,
			picks: map[string]string{"A": "a", "B": "b", "C": "c"},
		},
		{
			name:   "a participant's second page counts the participant once",
			ops:    []op{sync("l", 1, abc, true), join("A"), join("A"), pick("A", "a", ""), leave("A")},
			counts: []int{1, 0, 0}, answered: 1, watching: 1, round: 1, newRounds: 1,
			picks: map[string]string{"A": "a"},
		},
		{
			name:   "who left is not counted, and counts again on returning with the same pick",
			ops:    []op{sync("l", 1, abc, true), join("A"), join("B"), pick("A", "a", ""), pick("B", "a", ""), leave("B")},
			counts: []int{1, 0, 0}, answered: 1, watching: 1, round: 1, newRounds: 1,
			picks: map[string]string{"A": "a", "B": "a"},
		},
		{
			name:   "a late joiner's pick counts; a reconnect keeps it",
			ops:    []op{sync("l", 1, abc, true), join("A"), pick("A", "b", ""), leave("A"), join("A"), join("Late"), pick("Late", "c", "")},
			counts: []int{0, 1, 1}, answered: 2, watching: 2, round: 1, newRounds: 1,
			picks: map[string]string{"A": "b", "Late": "c"},
		},
		{
			name: "hostile picks are refused and change nothing",
			ops: []op{sync("l", 1, abc, true), join("A"), pick("A", "a", ""),
				pick("A", "zz", "not one of the choices"), pick("", "a", "participant's identity"), pick("A", strings.Repeat("x", 5000), "not one of the choices")},
			counts: []int{1, 0, 0}, answered: 1, watching: 1, round: 1, newRounds: 1,
			picks: map[string]string{"A": "a"},
		},
		{
			name:   "no lesson open: nothing to predict",
			ops:    []op{join("A"), pick("A", "a", "no lesson is open")},
			counts: []int{}, watching: 1, round: 0,
			picks: map[string]string{},
		},
		{
			name:   "a step that asks nothing takes no pick",
			ops:    []op{sync("l", 4, nil, false), join("A"), pick("A", "a", "asks nothing")},
			counts: []int{}, watching: 1, round: 1, newRounds: 1,
			picks: map[string]string{},
		},
		{
			name: "the reveal closes the picks and keeps them for judging",
			ops: []op{sync("l", 1, abc, true), join("A"), join("B"), pick("A", "a", ""), sync("l", 1, abc, false),
				pick("B", "b", "revealed already"), pick("A", "c", "revealed already"), sync("l", 1, abc, false)},
			counts: []int{1, 0, 0}, answered: 1, watching: 2, round: 1, revealed: true, newRounds: 1,
			picks: map[string]string{"A": "a"},
		},
		{
			name: "a new step starts a round with no picks",
			ops: []op{sync("l", 1, abc, true), join("A"), pick("A", "a", ""), sync("l", 1, abc, false),
				sync("l", 2, []string{"x", "y"}, true), pick("A", "a", "not one of the choices"), pick("A", "y", "")},
			counts: []int{0, 1}, answered: 1, watching: 1, round: 2, newRounds: 2,
			picks: map[string]string{"A": "y"},
		},
		{
			name: "the question asked again after its reveal (a reset) is a new round",
			ops: []op{sync("l", 1, abc, true), join("A"), pick("A", "a", ""), sync("l", 1, abc, false),
				sync("l", 1, abc, true), pick("A", "b", "")},
			counts: []int{0, 1, 0}, answered: 1, watching: 1, round: 2, newRounds: 2,
			picks: map[string]string{"A": "b"},
		},
		{
			name: "a reset before the reveal keeps the round's picks",
			ops: []op{sync("l", 1, abc, true), join("A"), pick("A", "a", ""),
				sync("l", 1, abc, true)},
			counts: []int{1, 0, 0}, answered: 1, watching: 1, round: 1, newRounds: 1,
			picks: map[string]string{"A": "a"},
		},
		{
			name: "the lesson closed: a round with nothing asked",
			ops: []op{sync("l", 1, abc, true), join("A"), pick("A", "a", ""),
				sync("", 0, nil, false), pick("A", "a", "no lesson is open")},
			counts: []int{}, watching: 1, round: 2, newRounds: 2,
			picks: map[string]string{},
		},
		{
			name: "another lesson at the same step number is another question",
			ops: []op{sync("l", 1, abc, true), join("A"), pick("A", "a", ""),
				sync("m", 1, abc, true)},
			counts: []int{0, 0, 0}, watching: 1, round: 2, newRounds: 2,
			picks: map[string]string{},
		},
		{
			name:   "leaving more than joined changes nothing",
			ops:    []op{sync("l", 1, abc, true), leave("A"), leave(""), join(""), join("B"), leave("A")},
			counts: []int{0, 0, 0}, watching: 1, round: 1, newRounds: 1,
			picks: map[string]string{},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newRoomPredictions()
			rounds := 0
			for i, o := range tc.ops {
				switch o.do {
				case "sync", "ask":
					if p.Sync(o.lesson, o.step, o.choices, o.do == "ask") {
						rounds++
					}
				case "join":
					p.Join(o.who)
				case "leave":
					p.Leave(o.who)
				case "pick":
					err := p.Pick(o.who, o.value)
					switch {
					case o.wantErr == "" && err != nil:
						t.Fatalf("op %d: pick(%q, %.20q) refused: %v", i, o.who, o.value, err)
					case o.wantErr != "" && (err == nil || !strings.Contains(err.Error(), o.wantErr)):
						t.Fatalf("op %d: pick(%q, %.20q): %v, want a refusal saying %q", i, o.who, o.value, err, o.wantErr)
					}
				}
				checkCounts(t, p, i)
			}
			got := p.Tally()
			if !slices.Equal(got.Counts, tc.counts) || got.Answered != tc.answered || got.Watching != tc.watching || got.Round != tc.round || got.Revealed != tc.revealed {
				t.Errorf("tally %+v; want counts %v, answered %d, watching %d, round %d, revealed %v", got, tc.counts, tc.answered, tc.watching, tc.round, tc.revealed)
			}
			if rounds != tc.newRounds {
				t.Errorf("%d syncs started a round, want %d", rounds, tc.newRounds)
			}
			if len(p.picks) != len(tc.picks) {
				t.Errorf("picks %v, want %v", p.picks, tc.picks)
			}
			for who, v := range tc.picks {
				if p.PickOf(who) != v {
					t.Errorf("%s's pick is %q, want %q", who, p.PickOf(who), v)
				}
			}
		})
	}
}

// checkCounts recounts the tally from the picks of who watches now.
func checkCounts(t *testing.T, p *roomPredictions, op int) {
	t.Helper()
	want := make([]int, len(p.choices))
	for who, v := range p.picks {
		if p.pages[who] > 0 {
			want[slices.Index(p.choices, v)]++
		}
	}
	if !slices.Equal(want, p.counts) {
		t.Fatalf("after op %d the counts are %v, recounted %v", op, p.counts, want)
	}
}

// A round keeps at most maxPicks picks: identities are free to make, so
// picks of participants who left are forgotten to make room, and past the
// bound with everyone still watching a new pick is refused, an old
// participant's change of mind still taken.
func TestRoomPredictionsAreBounded(t *testing.T) {
	p := newRoomPredictions()
	p.Sync("l", 1, []string{"a", "b"}, true)
	for i := range maxPicks {
		who := fmt.Sprint("gone-", i)
		p.Join(who)
		if err := p.Pick(who, "a"); err != nil {
			t.Fatal(err)
		}
		p.Leave(who)
	}
	p.Join("here")
	if err := p.Pick("here", "b"); err != nil {
		t.Fatalf("a pick with the round full of departed participants' picks: %v", err)
	}
	if len(p.picks) != 1 || p.Tally().Answered != 1 {
		t.Fatalf("the departed participants' picks were not forgotten: %d picks, tally %+v", len(p.picks), p.Tally())
	}
	for i := range maxPicks - 1 {
		who := fmt.Sprint("w-", i)
		p.Join(who)
		if err := p.Pick(who, "a"); err != nil {
			t.Fatal(err)
		}
	}
	p.Join("one-too-many")
	if err := p.Pick("one-too-many", "a"); err == nil || !strings.Contains(err.Error(), "the most one round keeps") {
		t.Fatalf("a pick past maxPicks with everyone watching: %v", err)
	}
	if err := p.Pick("here", "a"); err != nil {
		t.Fatalf("a change of mind at the bound: %v", err)
	}
	checkCounts(t, p, -1)
}
