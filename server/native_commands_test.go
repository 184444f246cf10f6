package server

import (
	"strings"
	"testing"
)

// `help` on the server lists the server's own commands after the lab's.
func TestHelpListsTheServersOwnCommands(t *testing.T) {
	s, _ := newTestServer(t)
	e := s.live.run("help")
	if !e.OK || !strings.Contains(e.Output, "on this server (not in the browser lab):") || !strings.Contains(e.Output, "\nrealtime [on") {
		t.Fatalf("help on the server:\n%s", e.Output)
	}
	if e := s.live.run("help tick"); strings.Contains(e.Output, "on this server") {
		t.Errorf("help for one command lists the server's commands too:\n%s", e.Output)
	}
}
