package server

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// Getting the command log onto the disk. A workshop must not stop because
// its log cannot be written, and the log must not silently stop either: a
// write that fails (a full disk, EIO) is told in the server's log with the
// commands it could not write, those are kept in memory, and each later
// command tries again, so the file is whole again as soon as the disk has
// room. A write cut short leaves half a line in the file; the rest of it
// is what is kept, so the line is completed, not written twice.

// appendCommandLog appends text to the file at path and says how much of
// it went in. The file is opened for each batch, so a cluster holds no
// descriptor while idle and a kill -9 loses nothing written. A variable
// so that a test can fill the disk.
var appendCommandLog = func(path, text string) (int, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return 0, err
	}
	n, err := f.WriteString(text)
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	return n, err
}

// flushCommandLog appends the pending lines to the file, with s.mu held,
// after whatever an earlier failure left unwritten.
func (s *liveSession) flushCommandLog() {
	l := s.commands
	if l.path == "" || (len(l.pending) == 0 && l.unwritten == "") {
		l.pending = nil
		return
	}
	if s.lab == nil || s.lab.Cluster() == nil {
		if _, err := os.Stat(l.path); errors.Is(err, fs.ErrNotExist) && len(l.pending) < 1024 {
			return // no cluster yet: see pending
		}
	}
	fresh := l.pending
	l.pending = nil
	var b strings.Builder
	b.WriteString(l.unwritten)
	for _, line := range fresh {
		b.WriteString(line)
		b.WriteByte('\n')
	}
	text := b.String()
	// Rotate only between whole lines: never with half a line waiting.
	if l.unwritten == "" && l.written > 0 && l.written+int64(len(text)) > commandLogFileMax {
		if err := os.Rename(l.path, l.path+".1"); err != nil {
			s.commandLogFailed(text, fresh, fmt.Errorf("rotating: %w", err))
			return
		}
		l.written = 0
		text = fmt.Sprintf("# the command log reached %d MiB and was rotated: the commands before these are in %s.1 (replay it first)\n", commandLogFileMax>>20, commandLogFile) + text
	}
	n, err := appendCommandLog(l.path, text)
	l.written += int64(n)
	if err != nil {
		s.commandLogFailed(text[n:], fresh, err)
		return
	}
	if l.failed != nil {
		s.logger.Info("the cluster's command log is written again: the commands kept while it failed are in the file", "path", l.path, "failedWith", l.failed.Error())
	}
	l.failed, l.unwritten = nil, ""
}

// commandLogFailed keeps rest (what the file lacks) for the next write
// and tells the server's log which commands could not be written.
func (s *liveSession) commandLogFailed(rest string, fresh []string, err error) {
	l := s.commands
	l.failed = err
	l.unwritten = boundUnwritten(rest)
	s.logger.Error("cannot write the cluster's command log: the commands are kept in memory and written once the disk has room",
		"path", l.path, "error", err.Error(), "unwritten", strings.Join(fresh, "\n"), "waitingBytes", len(l.unwritten))
}

// boundUnwritten keeps what waits for the disk within the memory copy's
// bound: past it, the oldest whole lines after the first (which may end a
// line already half in the file) give way to a comment saying how many.
// The server's log named each of them when it could not be written.
func boundUnwritten(rest string) string {
	if len(rest) <= commandLogMemory {
		return rest
	}
	first, after, _ := strings.Cut(rest, "\n")
	dropped := 0
	for len(first)+len(after) > commandLogMemory-200 {
		_, next, found := strings.Cut(after, "\n")
		if !found {
			break
		}
		after = next
		dropped++
	}
	return first + "\n" + fmt.Sprintf("# %d commands could not be written here while the disk was full (the server's log names each)\n", dropped) + after
}
