package lessons

import (
	"fmt"
	"strconv"
	"strings"
)

// Focus is what a step points the learner at: FORM names one element of
// the cluster view (the web templates carry it as data-focus="FORM"), and
// State, when the lesson gives one (` = STATE`), is what that element must
// show (its data-focus-state) once the step's commands ran. A test renders
// the view after every step, so a lesson cannot point at something the
// page does not draw, or describe it differently from what it draws.
type Focus struct {
	Form  string // normalised: single spaces, e.g. "partition orders/0 replica 2 hw"
	State string // "" when the lesson does not say
}

// partitionParts are the words after `partition T/P` that name one of the
// partition's own elements; replicaParts those after `partition T/P replica B`.
var (
	partitionParts = map[string]bool{"leader": true, "epoch": true, "isr": true, "hw": true, "log-start": true, "log-end": true, "lso": true, "lost": true, "segments": true}
	replicaParts   = map[string]bool{"hw": true, "leo": true, "isr": true}
)

// focusForms is the grammar, for error messages (README.md "Focus" has the
// meaning of each form and its STATE).
const focusForms = "partition T/P [leader|epoch|isr|hw|log-start|log-end|lso|lost|segments], partition T/P record N, " +
	"partition T/P replica B [hw|leo|isr], broker B, controller N, metadata-log, quorum-replication, violations, inspector batch|lookup, " +
	"group G [epoch|timeline], group G member C, group G partition|committed T/P, group G partition T/P ownership, producer NAME [state], txn ID [partitions], side-effects CONSUMER"

// ParseFocus reads a focus: line's value, `FORM` or `FORM = STATE`, and
// checks FORM against the vocabulary: an element the page cannot name is a
// typo the trainer must hear about at load, not a highlight that silently
// never shows.
func ParseFocus(value string) (Focus, error) {
	form, state, hasState := strings.Cut(value, " = ")
	if f, ok := strings.CutSuffix(strings.TrimSpace(value), " ="); ok && !hasState {
		form, hasState = f, true // the lesson file's line lost its trailing space
	}
	f := Focus{Form: strings.Join(strings.Fields(form), " "), State: strings.TrimSpace(state)}
	if hasState && f.State == "" {
		return f, fmt.Errorf("focus: %q has ` = ` but no state after it", strings.TrimSpace(value))
	}
	if err := checkFocusForm(strings.Fields(form)); err != nil {
		return f, fmt.Errorf("focus: %q: %v (forms: %s)", form, err, focusForms)
	}
	return f, nil
}

func checkFocusForm(w []string) error {
	if len(w) == 0 {
		return fmt.Errorf("names nothing")
	}
	switch w[0] {
	case "side-effects":
		if len(w) != 2 {
			return fmt.Errorf("side-effects is followed by the consumer's name")
		}
		return nil
	case "metadata-log", "quorum-replication", "violations":
		if len(w) != 1 {
			return fmt.Errorf("%s takes nothing after it", w[0])
		}
		return nil
	case "inspector":
		if len(w) != 2 || (w[1] != "batch" && w[1] != "lookup") {
			return fmt.Errorf("inspector is followed by batch or lookup")
		}
		return nil
	case "broker", "controller":
		if len(w) != 2 || !isIndex(w[1]) {
			return fmt.Errorf("%s is followed by its id", w[0])
		}
		return nil
	case "partition":
		return checkPartitionForm(w[1:])
	case "group":
		return checkGroupForm(w[1:])
	case "producer":
		if len(w) == 2 || (len(w) == 3 && w[2] == "state") {
			return nil
		}
		return fmt.Errorf("producer is followed by the producer's name, then nothing or state")
	case "txn":
		if len(w) == 2 || (len(w) == 3 && w[2] == "partitions") {
			return nil
		}
		return fmt.Errorf("txn is followed by the transactional.id, then nothing or partitions")
	}
	return fmt.Errorf("unknown element %q", w[0])
}

func checkPartitionForm(w []string) error {
	if len(w) == 0 {
		return fmt.Errorf("partition is followed by TOPIC/PARTITION")
	}
	topic, idx, ok := strings.Cut(w[0], "/")
	if !ok || topic == "" || !isIndex(idx) {
		return fmt.Errorf("%q is not TOPIC/PARTITION", w[0])
	}
	switch rest := w[1:]; {
	case len(rest) == 0:
		return nil
	case len(rest) == 1 && partitionParts[rest[0]]:
		return nil
	case rest[0] == "record":
		if len(rest) != 2 || !isIndex(rest[1]) {
			return fmt.Errorf("record is followed by an offset")
		}
		return nil
	case rest[0] == "replica":
		if len(rest) < 2 || !isIndex(rest[1]) {
			return fmt.Errorf("replica is followed by a broker id")
		}
		if len(rest) == 2 || (len(rest) == 3 && replicaParts[rest[2]]) {
			return nil
		}
		return fmt.Errorf("replica B is followed by nothing, hw, leo or isr, not %q", strings.Join(rest[2:], " "))
	}
	return fmt.Errorf("unknown partition element %q", strings.Join(w[1:], " "))
}

// checkGroupForm reads what follows `group`: the group id (one word, as
// the lab's commands take it), then nothing, epoch, timeline, member
// CLIENT, partition/committed TOPIC/PARTITION, or partition TOPIC/PARTITION
// ownership (the partition's row of owners in the rebalance timeline).
func checkGroupForm(w []string) error {
	if len(w) == 0 {
		return fmt.Errorf("group is followed by the group id")
	}
	switch rest := w[1:]; {
	case len(rest) == 0:
		return nil
	case len(rest) == 1 && (rest[0] == "epoch" || rest[0] == "timeline"):
		return nil
	case rest[0] == "member":
		if len(rest) != 2 {
			return fmt.Errorf("member is followed by the consumer's name")
		}
		return nil
	case len(rest) == 3 && rest[0] == "partition" && rest[2] == "ownership":
		if !isTopicPartition(rest[1]) {
			return fmt.Errorf("partition is followed by TOPIC/PARTITION, then ownership")
		}
		return nil
	case rest[0] == "partition" || rest[0] == "committed":
		if len(rest) != 2 || !isTopicPartition(rest[1]) {
			return fmt.Errorf("%s is followed by TOPIC/PARTITION", rest[0])
		}
		return nil
	}
	return fmt.Errorf("unknown group element %q", strings.Join(w[1:], " "))
}

func isTopicPartition(s string) bool {
	topic, idx, ok := strings.Cut(s, "/")
	return ok && topic != "" && isIndex(idx)
}

// isIndex: an offset, partition index or node id as the page draws it,
// without a sign or leading zero, so the form matches data-focus exactly.
func isIndex(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n >= 0 && strconv.Itoa(n) == s
}

// FocusSelector is the CSS selector of a focus form's element, for the
// browser player (which scrolls to it and highlights it) and the e2e tests:
// `[data-focus="FORM"]`, the form escaped as a CSS string.
func FocusSelector(form string) string {
	var b strings.Builder
	b.WriteString(`[data-focus="`)
	for _, r := range form {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			// A control character cannot stand in a CSS string: write it
			// as a hex escape, ended by the space CSS swallows.
			fmt.Fprintf(&b, `\%x `, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteString(`"]`)
	return b.String()
}
