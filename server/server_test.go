package server

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

func newTestServer(t *testing.T) (*Server, *httptest.Server) {
	t.Helper()
	s := newLoggedTestServer(t, io.Discard)
	ts := httptest.NewServer(instructorHandler(s))
	t.Cleanup(func() { s.Close(); ts.Close() })
	return s, ts
}

// newLoggedTestServer is a server whose log goes to logs; the caller
// closes it.
func newLoggedTestServer(t *testing.T, logs io.Writer) *Server {
	t.Helper()
	static := t.TempDir()
	for name, body := range map[string]string{
		"app.js":      "// glue",
		"loglab.wasm": strings.Repeat("\x00asm", 4096),
	} {
		if err := os.WriteFile(filepath.Join(static, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := New(Options{StaticDir: static, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestPagesRender(t *testing.T) {
	_, ts := newTestServer(t)
	for path, want := range map[string]string{
		"/":     `href="/lab"`,
		"/lab":  `src="/static/wasm_exec.js"`,
		"/live": `data-partition="orders/2"`, // the starter script ran on the server
	} {
		code, body := get(t, ts.URL+path)
		if code != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("GET %s: %d, body lacks %q", path, code, want)
		}
	}
	if code, _ := get(t, ts.URL+"/static/%2e%2e/live.go"); code != http.StatusNotFound {
		t.Errorf("a path escaping the static folder got %d", code)
	}
}

func TestStaticFilesAreCompressedWithTheirTypes(t *testing.T) {
	_, ts := newTestServer(t)
	req, _ := http.NewRequest(http.MethodGet, ts.URL+"/static/loglab.wasm", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "application/wasm" {
		t.Errorf("wasm served as %q; instantiateStreaming needs application/wasm", ct)
	}
	if ce := resp.Header.Get("Content-Encoding"); ce != "gzip" {
		t.Errorf("wasm Content-Encoding %q, want gzip", ce)
	}
}

func TestAPICommandRunsOnTheLiveCluster(t *testing.T) {
	_, ts := newTestServer(t)
	post := func(body string) (int, string) {
		resp, err := http.Post(ts.URL+"/api/command", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, body := post(`{"line":"produce orders key=a value=1 partition=1"}`)
	// The output starts with the delivery report; the idempotent console
	// producer's InitProducerId follows as traced events.
	if code != http.StatusOK || !strings.Contains(body, `"output":"produced to orders/1 at offset 0 (acks=all)\n`) || !strings.Contains(body, `"ok":true`) {
		t.Fatalf("produce: %d %s", code, body)
	}
	code, body = post(`{"line":"produce nowhere value=1"}`)
	if code != http.StatusOK || !strings.Contains(body, `UNKNOWN_TOPIC_OR_PARTITION`) || !strings.Contains(body, `"ok":false`) {
		t.Fatalf("a failing command: %d %s", code, body)
	}
	for _, bad := range []string{"junk", `{"line":""}`, `{"line":` + strings.Repeat(" ", 5000) + `"x"}`} {
		if code, _ := post(bad); code != http.StatusBadRequest {
			t.Errorf("body %.20q got %d, want 400", bad, code)
		}
	}
	if _, page := get(t, ts.URL+"/live"); !strings.Contains(page, "produce orders key=a value=1 partition=1") {
		t.Error("the live page's transcript lacks the command sent through the API")
	}
}

func dial(t *testing.T, ts *httptest.Server) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseNow() })
	// A browser takes messages of any size; coder/websocket's client reads
	// 32 KiB by default, less than a cluster view with its quorum panel.
	c.SetReadLimit(4 << 20)
	return c
}

func readUpdate(t *testing.T, c *websocket.Conn) update {
	t.Helper()
	// A bound that turns a lost update into a failure, not a timing
	// assertion: a loaded machine takes well under it.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	data, err := readAnswer(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	var u update
	if err := json.Unmarshal(data, &u); err != nil {
		t.Fatal(err)
	}
	return u
}

// readAnswer reads the connection's next message. Nothing moves the
// cluster between commands (its controller quorum runs in virtual time
// too), so the next message is the answer to what was sent.
func readAnswer(ctx context.Context, conn *websocket.Conn) ([]byte, error) {
	_, data, err := conn.Read(ctx)
	return data, err
}

// changedHTML is all the HTML of the view an update carries: the whole
// view, or the fragments that changed.
func changedHTML(u update) string {
	var b strings.Builder
	b.WriteString(u.View)
	for _, f := range u.Fragments {
		b.WriteString(f.HTML)
	}
	return b.String()
}

func TestWebsocketBroadcastsEveryCommandToEveryPage(t *testing.T) {
	s, ts := newTestServer(t)
	sender, watcher := dial(t, ts), dial(t, ts)
	waitForSubscribers(t, s, 2)
	ctx := context.Background()
	if err := sender.Write(ctx, websocket.MessageText, []byte(`{"type":"command","line":"produce orders key=k value=hello-ws partition=0"}`)); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]*websocket.Conn{"sender": sender, "watcher": watcher} {
		u := readUpdate(t, c)
		if u.Type != "update" || !strings.Contains(changedHTML(u), "hello-ws") || !strings.Contains(u.Entry, "produced to orders/0 at offset 0 (acks=all)") {
			t.Errorf("%s got %+v", name, u)
		}
	}
}

func TestWebsocketRejectsForeignOrigins(t *testing.T) {
	_, ts := newTestServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+"/ws", &websocket.DialOptions{
		HTTPHeader: http.Header{"Origin": []string{"https://evil.example"}},
	})
	if err == nil {
		t.Fatal("a page from another origin could connect")
	}
	if resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("foreign origin got %v, want 403", resp)
	}
}

func waitForSubscribers(t *testing.T, s *Server, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		s.live.mu.Lock()
		got := len(s.live.subscribers)
		s.live.mu.Unlock()
		if got >= n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("fewer than %d subscribers connected", n)
}

// Browsers offer permessage-deflate; the server takes it, so the views it
// pushes cross a workshop's Wi-Fi compressed, and a compressed page's
// commands and updates work as an uncompressed one's do.
func TestWebsocketUpdatesAreCompressed(t *testing.T) {
	s, ts := newTestServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+"/ws", &websocket.DialOptions{CompressionMode: websocket.CompressionNoContextTakeover})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	c.SetReadLimit(4 << 20)
	if ext := resp.Header.Get("Sec-WebSocket-Extensions"); !strings.Contains(ext, "permessage-deflate") {
		t.Fatalf("the server did not take compression: Sec-WebSocket-Extensions %q", ext)
	}
	waitForSubscribers(t, s, 1)
	sendCommand(t, c, "produce orders key=k value=compressed partition=0")
	if u := readUpdate(t, c); !strings.Contains(changedHTML(u), "compressed") || !strings.Contains(u.Entry, "produced to orders/0") {
		t.Fatalf("update over a compressed connection: %.300s", u.Entry)
	}
}

// instructorHandler is s's handler for tests that are not about roles:
// a request without credentials is sent as the instructor's (Bearer),
// so it may drive the instructor's cluster as before roles existed.
func instructorHandler(s *Server) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" {
			r.Header.Set("Authorization", "Bearer "+s.InstructorToken())
		}
		s.Handler().ServeHTTP(w, r)
	})
}
