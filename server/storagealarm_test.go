package server

import (
	"strings"
	"testing"

	"github.com/loglab/loglab/internal/syncbuf"
)

// An operator reads the server's log, not thirty transcripts: every
// command's storage alarms (a recovery that truncated a segment) are
// written there as warnings with the file, whichever command's output
// carries them.
func TestLiveSessionLogsEveryCommandsStorageAlarms(t *testing.T) {
	logs := &syncbuf.Buffer{}
	s := newLoggedTestServer(t, logs)
	t.Cleanup(func() { s.Close() })
	run := s.live.runLine
	s.live.runLine = func(line string) (string, error) {
		if line == "broker restart 3" {
			return "broker 3 restarted\n  [12s] b3: Found invalid messages in log segment broker-3/orders-0/00000000000000000000.log at byte offset 4096, truncating to offset 17", nil
		}
		return run(line)
	}
	s.live.run("broker restart 3")
	if got := logs.String(); !strings.Contains(got, "level=WARN") || !strings.Contains(got, "Found invalid messages in log segment") ||
		!strings.Contains(got, "00000000000000000000.log") || !strings.Contains(got, "position=4096") {
		t.Fatalf("the server log lacks the alarm:\n%s", got)
	}
}
