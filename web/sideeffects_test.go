package web

import (
	"fmt"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/view"
)

// The side effects panel holds lesson 23's payoff: which input record's
// side effect (the email) ran twice, per consumer, in words as well as
// colour, and the consumer's focus state counts those records.
func TestSideEffectsPanelMarksTheRepeatedOnes(t *testing.T) {
	c := failover()
	c.SideEffects = []view.SideEffect{
		{Consumer: "worker", Input: "orders/0", Offset: 0, Value: "order-0", Times: 1},
		{Consumer: "worker", Input: "orders/0", Offset: 1, Value: "order-1", Times: 1},
		{Consumer: "worker", Input: "orders/0", Offset: 2, Value: "order-2", Times: 2},
		{Consumer: "other", Input: "orders/1", Offset: 0, Value: "x", Times: 1},
	}
	html := render(t, c)
	worker := element(t, html, `<article class="side-effects-of" data-consumer="worker"[^>]*>`)
	if attrOf(worker, "data-focus") != "side-effects worker" || attrOf(worker, "data-focus-state") != "1" {
		t.Errorf("worker's side effects: %s, want focus side-effects worker = 1", worker)
	}
	if other := element(t, html, `<article class="side-effects-of" data-consumer="other"[^>]*>`); attrOf(other, "data-focus-state") != "0" {
		t.Errorf("other's side effects: %s, want 0 repeated", other)
	}
	row := element(t, html, `<tr class="se-again" data-input="orders/0" data-offset="2" data-times="2">[\s\S]*?</tr>`)
	for _, want := range []string{"order-2", en("2 times: again"), "2 次：重复了"} {
		if !strings.Contains(row, want) {
			t.Errorf("order-2's row lacks %q: %s", want, row)
		}
	}
	for _, want := range []string{en("3 input records · 1 with the side effect performed more than once"), en("1 input record · 0 with the side effect performed more than once"), en("1 time")} {
		if !strings.Contains(html, want) {
			t.Errorf("the panel lacks %q", want)
		}
	}
	if n := strings.Count(html, `class="se-again"`); n != 1 {
		t.Errorf("%d rows marked again, want 1", n)
	}
	// No side effects: no panel.
	if c.SideEffects = nil; strings.Contains(render(t, c), `id="side-effects"`) {
		t.Error("a cluster without side effects draws the panel")
	}
}

// A long table keeps every repeated record and counts what it leaves out.
func TestSideEffectsKeepTheRepeatedOnes(t *testing.T) {
	var es []view.SideEffect
	for i := range 100 {
		times := 1
		if i%40 == 39 {
			times = 3
		}
		es = append(es, view.SideEffect{Consumer: "w", Input: "in/0", Offset: int64(i), Value: fmt.Sprint(i), Times: times})
	}
	g := groupSideEffects(es)
	if len(g) != 1 || g[0].Total != 100 || g[0].Again != 2 || len(g[0].Effects) != SideEffectsShown || g[0].Hidden != 100-SideEffectsShown {
		t.Fatalf("grouped: %+v", g)
	}
	again := 0
	for i, e := range g[0].Effects {
		if e.Times > 1 {
			again++
		}
		if i > 0 && e.Offset <= g[0].Effects[i-1].Offset {
			t.Errorf("the rows are out of order at %d", e.Offset)
		}
	}
	if again != 2 {
		t.Errorf("%d repeated records drawn, want both", again)
	}
}
