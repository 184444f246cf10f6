package lessons

import "testing"

// TestFirstStepAsksNothing: a step's question is asked before its commands
// run, so a question in a lesson's first step would be asked over an empty
// view. The first step builds the cluster and says what is on screen; the
// first question comes after it (README.md, "The first step asks nothing").
func TestFirstStepAsksNothing(t *testing.T) {
	all, err := All()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range all {
		if len(l.Steps) == 0 {
			continue
		}
		first := l.Steps[0]
		if first.Predict != nil {
			t.Errorf("%s: the first step, %q, asks a question before anything is drawn: move its setup commands into a step of their own before it", l.File, first.Name)
		}
		if first.Goal {
			t.Errorf("%s: the first step, %q, is a goal over an empty view: build the cluster in a step before it", l.File, first.Name)
		}
	}
}
