package lab

import "strings"

// CommandsOf extracts the script from a transcript: the comment lines and
// the commands echoed after "> ". A transcript can therefore be replayed, and
// a test can check that replaying it prints it again unchanged.
func CommandsOf(transcript string) string {
	var b strings.Builder
	for _, line := range strings.Split(transcript, "\n") {
		switch {
		case strings.HasPrefix(line, "> "):
			b.WriteString(strings.TrimPrefix(line, "> ") + "\n")
		case strings.HasPrefix(line, "#"):
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}
