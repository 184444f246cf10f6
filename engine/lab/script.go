package lab

import (
	"bufio"
	"io"
	"strings"
)

// RunScript runs a script line by line and writes the transcript: comments
// are copied, each command is echoed after "> " and followed by its output,
// and a failed command prints "error: ..." and the script goes on, because
// lessons show errors on purpose. It reports how many commands failed.
func (l *Lab) RunScript(r io.Reader, w io.Writer) (failed int, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
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
	return failed, sc.Err()
}

func withNewline(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}
