package server

import (
	"errors"
	"testing"
)

// The name a participant gives their cluster is shown to the room: it may
// not pass for the instructor or another participant's default name, nor
// hide characters that reorder or disguise what others read.
func TestParticipantName(t *testing.T) {
	for _, c := range []struct {
		in, want string
		bad      bool
	}{
		{"", "participant 7", false},
		{"  Ana  ", "Ana", false},
		{"李雷", "李雷", false},
		{"Ana (participant 3)", "Ana (participant 3)", false},
		{"instructor", "", true},
		{"  The   Instructor ", "", true},
		{"LogLab", "", true},
		{"participant 3", "", true},
		{"Participant  12", "", true},
		{"evil\u202Erotcurtsni", "", true}, // RIGHT-TO-LEFT OVERRIDE
		{"in\u200Bstructor", "", true},     // ZERO WIDTH SPACE
		{"a\u2066b", "", true},             // LEFT-TO-RIGHT ISOLATE
		{"tab\there", "", true},
	} {
		got, err := participantName(c.in, 7)
		if c.bad {
			if !errors.Is(err, errBadName) {
				t.Errorf("participantName(%q) = %q, %v; want errBadName", c.in, got, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("participantName(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}
