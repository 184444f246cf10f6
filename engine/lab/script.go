package lab

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// RunScript runs a script line by line and writes the transcript: comments
// are copied, each command is echoed after "> " and followed by its output,
// and a failed command prints "error: ..." and the script goes on, because
// lessons show errors on purpose. It reports how many commands failed. A
// line of any length is read; one past MaxCommandLineBytes fails naming
// its line number, and is echoed cut short.
func (l *Lab) RunScript(r io.Reader, w io.Writer) (failed int, err error) {
	lines := newLineReader(r, l.limits.commandLineBytes)
	for number := 1; ; number++ {
		raw, length, readErr := lines.next()
		if readErr == io.EOF {
			return failed, nil
		}
		if readErr != nil {
			return failed, readErr
		}
		line := strings.TrimSpace(raw)
		if line == "" {
			continue
		}
		if length > l.limits.commandLineBytes {
			failed++
			echo := fmt.Sprintf("> %.60s... (line %d)\nerror: line %d: %v\n", line, number, number, errLineTooLong(length, l.limits.commandLineBytes))
			if _, err := io.WriteString(w, echo); err != nil {
				return failed, err
			}
			continue
		}
		if strings.HasPrefix(line, "#") {
			if _, err := io.WriteString(w, line+"\n"); err != nil {
				return failed, err
			}
			continue
		}
		out, runErr := l.Run(line)
		if runErr != nil {
			failed++
			out = "error: " + runErr.Error()
		}
		if _, err := io.WriteString(w, "> "+line+"\n"+withNewline(out)); err != nil {
			return failed, err
		}
	}
}

// lineReader reads lines of any length, keeping at most keep+1 bytes of
// each: the rest of a longer line is counted and dropped, so that a huge
// line neither fails the read (as bufio.Scanner's token limit did, naming
// no line) nor fills memory.
type lineReader struct {
	r    *bufio.Reader
	keep int
}

func newLineReader(r io.Reader, keep int) *lineReader {
	return &lineReader{r: bufio.NewReader(r), keep: keep}
}

// next returns the next line without its end of line, and its whole
// length in bytes; io.EOF once nothing is left.
func (lr *lineReader) next() (string, int, error) {
	var b strings.Builder
	length := 0
	for {
		chunk, err := lr.r.ReadSlice('\n')
		length += len(chunk)
		if room := lr.keep + 1 - b.Len(); room > 0 {
			b.Write(chunk[:min(len(chunk), room)])
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF && length == 0:
			return "", 0, io.EOF
		case err != nil && err != io.EOF:
			return "", 0, err
		}
		// The end of line is no part of the line.
		switch {
		case strings.HasSuffix(string(chunk), "\r\n"):
			length -= 2
		case strings.HasSuffix(string(chunk), "\n"):
			length--
		}
		line := b.String()
		return line[:min(len(line), length)], length, nil
	}
}

func withNewline(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}
