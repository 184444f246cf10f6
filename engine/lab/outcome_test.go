package lab

import (
	"errors"
	"fmt"
	"testing"

	"github.com/loglab/loglab/engine/log"
	"github.com/loglab/loglab/engine/protocol"
)

func TestIsKafkaOutcome(t *testing.T) {
	cases := []struct {
		err  error
		want bool
	}{
		{errors.New("NOT_CONTROLLER: no active controller to create the topic"), true},
		{errors.New("events/0: OFFSET_OUT_OF_RANGE"), true},
		{fmt.Errorf("%w: offset 1 is outside the log [0, 0]", log.ErrOffsetOutOfRange), true},
		{fmt.Errorf("orders/0: %w", protocol.NotEnoughReplicas), true},
		{errors.New("INVALID_CONFIG: cleanup.policy=forever: must be delete, compact or compact,delete\n  [1s] events"), true},
		{errors.New("unknown option kye"), false},
		{errors.New("power=yes must be true or false"), false},
		{errors.New("no broker 7 (brokers are 1-3)"), false},
		// A code mentioned in prose is not Kafka's answer.
		{errors.New("acks=2 is refused: see INVALID_REQUIRED_ACKS"), false},
		{errors.New("ISR: missing"), false},
	}
	for _, c := range cases {
		if got := isKafkaOutcome(c.err); got != c.want {
			t.Errorf("isKafkaOutcome(%q) = %v, want %v", c.err, got, c.want)
		}
	}
}

func TestNearestCommand(t *testing.T) {
	cases := []struct {
		typed []string
		want  string
	}{
		{[]string{"prodcue", "orders"}, "produce"}, // a swap is one edit
		{[]string{"produc"}, "produce"},
		{[]string{"shwo", "log", "orders/0"}, "show log"},
		{[]string{"show", "lgo"}, "show log"},
		{[]string{"net", "partiton"}, "net partition"},
		{[]string{"hlep"}, "help"},
		{[]string{"frobnicate"}, ""},
		{[]string{"tock"}, "tick"},  // one edit in four letters
		{[]string{"tusk", "x"}, ""}, // two edits in four letters is another word
		{[]string{"show"}, ""},      // a group alone: the caller lists its commands
	}
	for _, c := range cases {
		if got := nearestCommand(c.typed); got != c.want {
			t.Errorf("nearestCommand(%q) = %q, want %q", c.typed, got, c.want)
		}
	}
}
