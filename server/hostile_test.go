package server

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/coder/websocket"
)

// newDataDirServer is a test server whose live cluster keeps its files in
// a data directory, as `loglab serve -data-dir` does.
func newDataDirServer(t *testing.T) (*Server, *httptest.Server) {
	t.Helper()
	s, err := New(Options{StaticDir: t.TempDir(), DataDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(instructorHandler(s))
	t.Cleanup(func() { s.Close(); ts.Close() })
	return s, ts
}

func sendCommand(t *testing.T, c *websocket.Conn, line string) {
	t.Helper()
	msg := `{"type":"command","line":` + strings.ReplaceAll(`"`+line+`"`, "\n", `\n`) + `}`
	if err := c.Write(context.Background(), websocket.MessageText, []byte(msg)); err != nil {
		t.Fatal(err)
	}
}

// One websocket message with an empty line used to kill `loglab serve
// -data-dir` (an index out of range after the command ran, in a goroutine
// without recover). It must be a harmless no-op, and the session goes on.
func TestEmptyWebsocketCommandWithADataDirKeepsTheServerUp(t *testing.T) {
	s, ts := newDataDirServer(t)
	c := dial(t, ts)
	waitForSubscribers(t, s, 1)
	for _, line := range []string{"", "   "} {
		sendCommand(t, c, line)
		readUpdate(t, c)
	}
	sendCommand(t, c, "produce orders key=k value=after-empty partition=0")
	if u := readUpdate(t, c); !strings.Contains(u.Entry, "produced to orders/0 at offset 0") {
		t.Fatalf("the command after the empty ones: %+v", u)
	}
}

// A command that panics inside the engine must not take the server, the
// page's connection or the shared cluster down: the page hears of the
// error, and its next command runs.
func TestAPanickingCommandLeavesTheSessionUsable(t *testing.T) {
	s, ts := newTestServer(t)
	run := s.live.runLine
	s.live.runLine = func(line string) (string, error) {
		if line == "boom" {
			panic("forced by the test")
		}
		return run(line)
	}
	c := dial(t, ts)
	waitForSubscribers(t, s, 1)
	sendCommand(t, c, "boom")
	if u := readUpdate(t, c); !strings.Contains(u.Entry, "internal error") {
		t.Fatalf("the page was not told of the panic: %+v", u)
	}
	sendCommand(t, c, "produce orders key=k value=after-panic partition=0")
	if u := readUpdate(t, c); !strings.Contains(u.Entry, "produced to orders/0 at offset 0") {
		t.Fatalf("the command after the panic: %+v", u)
	}

	resp, err := http.Post(ts.URL+"/api/command", "application/json", strings.NewReader(`{"line":"boom"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"ok":false`) || !strings.Contains(string(body), "internal error") {
		t.Fatalf("POST of a panicking command: %d %s", resp.StatusCode, body)
	}
	if e := s.live.run("topic describe orders"); !e.OK {
		t.Fatalf("the cluster after the panics: %s", e.Output)
	}
}
