package server

import (
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/loglab/loglab/internal/syncbuf"
)

// Reproduction 3 of issue 26, the command log's part: with the disk full,
// commands.log silently stopped until the next restart. Now each write
// that fails is told in the server's log with the commands it could not
// write, the session goes on, and once the disk has room the next command
// writes them all: the file is again exactly the memory copy, the line cut
// in half by the full disk completed, not written twice.
func TestACommandLogThatCannotBeWrittenSaysWhatAndResumes(t *testing.T) {
	dir := t.TempDir()
	logs := &syncbuf.Buffer{}
	s, err := newLiveSession(dir, nil, slog.New(slog.NewTextHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer s.shutdown()
	mustRun(t, s, "produce orders key=k value=before")

	// The disk fills: the next write takes 5 bytes, then ENOSPC.
	real := appendCommandLog
	defer func() { appendCommandLog = real }()
	room := 5
	appendCommandLog = func(path, text string) (int, error) {
		if room < 0 || len(text) <= room {
			return real(path, text)
		}
		n, _ := real(path, text[:room])
		room = 0
		return n, &fs.PathError{Op: "write", Path: path, Err: syscall.ENOSPC}
	}
	mustRun(t, s, "produce orders key=k value=while-full-1")
	mustRun(t, s, "produce orders key=k value=while-full-2")
	got := logs.String()
	for _, want := range []string{"level=ERROR", "cannot write the cluster's command log", "no space left on device",
		"unwritten=\"produce orders key=k value=while-full-1\"", "unwritten=\"produce orders key=k value=while-full-2\""} {
		if !strings.Contains(got, want) {
			t.Errorf("the server log lacks %q:\n%s", want, got)
		}
	}

	// Space returns: the next command writes what waited, then itself.
	room = -1
	mustRun(t, s, "produce orders key=k value=after")
	file, err := os.ReadFile(filepath.Join(dir, commandLogFile))
	if err != nil {
		t.Fatal(err)
	}
	memory, _ := s.commandLogText()
	if string(file) != memory {
		t.Errorf("the file differs from the memory log:\nfile:\n%s\nmemory:\n%s", file, memory)
	}
	if !strings.Contains(memory, "value=while-full-1\nproduce orders key=k value=while-full-2\nproduce orders key=k value=after\n") {
		t.Errorf("the log:\n%s", memory)
	}
	if !strings.Contains(logs.String(), "the cluster's command log is written again") {
		t.Errorf("the server log does not say the log resumed:\n%s", logs.String())
	}
}

// What waits for the disk stays within the memory bound: the oldest
// whole lines give way to a comment counting them, and the line already
// half in the file is still completed first.
func TestUnwrittenCommandsAreBounded(t *testing.T) {
	rest := "alf line\n" + strings.Repeat("tick 200ms\n", commandLogMemory/len("tick 200ms\n")+50)
	got := boundUnwritten(rest)
	if len(got) > commandLogMemory || !strings.HasPrefix(got, "alf line\n# ") || !strings.Contains(got, "commands could not be written here while the disk was full") ||
		!strings.HasSuffix(got, "tick 200ms\n") {
		t.Errorf("bounded to %d bytes: %.200q", len(got), got)
	}
}
