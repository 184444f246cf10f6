package web

import (
	"strconv"

	"github.com/loglab/loglab/engine/view"
)

// The side effects panel's numbers: what the `eos` loops did outside
// Kafka, grouped by the consumer whose application did it. Lesson 23's
// payoff (an email sent twice although every Kafka write was exactly
// once) is read here rather than from a console table.

// SideEffectsShown bounds the input records a consumer's table draws;
// `show side-effects` lists them all.
const SideEffectsShown = 24

// sideEffectsOf is one consumer's side effects.
type sideEffectsOf struct {
	Consumer string
	Effects  []view.SideEffect // those drawn, in order
	Again    int               // input records whose effect ran more than once
	Total    int
	Hidden   int
}

// groupSideEffects groups the effects by consumer, in the order each
// consumer's first effect came. A table too long keeps the records whose
// effect was repeated (what the panel is for), then the first others.
func groupSideEffects(es []view.SideEffect) []sideEffectsOf {
	var out []sideEffectsOf
	at := map[string]int{}
	for _, e := range es {
		i, ok := at[e.Consumer]
		if !ok {
			i = len(out)
			at[e.Consumer] = i
			out = append(out, sideEffectsOf{Consumer: e.Consumer})
		}
		o := &out[i]
		o.Total++
		if e.Times > 1 {
			o.Again++
		}
		o.Effects = append(o.Effects, e)
	}
	for i := range out {
		o := &out[i]
		if len(o.Effects) <= SideEffectsShown {
			continue
		}
		room := SideEffectsShown - min(o.Again, SideEffectsShown)
		var kept []view.SideEffect
		for _, e := range o.Effects {
			switch {
			case e.Times > 1 && len(kept) < SideEffectsShown:
				kept = append(kept, e)
			case e.Times <= 1 && room > 0:
				kept = append(kept, e)
				room--
			}
		}
		o.Hidden = len(o.Effects) - len(kept)
		o.Effects = kept
	}
	return out
}

// sideEffectsHead is a consumer's line above its table.
func sideEffectsHead(o sideEffectsOf) words {
	n, a := strconv.Itoa(o.Total), strconv.Itoa(o.Again)
	return words{n + " input " + pluralS(o.Total, "record") + " · " + a + " with the side effect performed more than once",
		n + " 条输入记录 · 其中 " + a + " 条的副作用执行了不止一次"}
}

// timesWords is how often one record's side effect ran.
func timesWords(n int) words {
	s := strconv.Itoa(n)
	if n > 1 {
		return words{s + " times: again", s + " 次：重复了"}
	}
	return words{s + " " + pluralS(n, "time"), s + " 次"}
}
