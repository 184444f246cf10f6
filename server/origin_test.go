package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func postCommand(t *testing.T, ts *httptest.Server, header http.Header, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, ts.URL+"/api/command", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// A foreign page can make a visitor's browser send a "simple" cross-site
// POST (text/plain, no preflight) to a workshop server on the visitor's
// network; one such request wiped a data directory. It is refused before
// any command runs.
func TestForeignOriginPostIsRefusedAndChangesNothing(t *testing.T) {
	s, ts := newDataDirServer(t)
	before := s.live.run("show log orders/0").Output
	for name, h := range map[string]http.Header{
		"foreign origin, text/plain": {"Origin": {"https://evil.example"}, "Content-Type": {"text/plain"}},
		"foreign origin, JSON":       {"Origin": {"https://evil.example"}, "Content-Type": {"application/json"}},
		"null origin":                {"Origin": {"null"}, "Content-Type": {"text/plain"}},
		"cross-site fetch metadata":  {"Sec-Fetch-Site": {"cross-site"}, "Content-Type": {"text/plain"}},
		"same-site fetch metadata":   {"Sec-Fetch-Site": {"same-site"}, "Content-Type": {"application/json"}},
	} {
		if code, body := postCommand(t, ts, h, `{"line":"produce orders key=x value=evil partition=0"}`); code != http.StatusForbidden {
			t.Errorf("%s: got %d %s, want 403", name, code, body)
		}
	}
	// Without Origin (curl, or an old browser): a form or text/plain body
	// is still not a command.
	for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""} {
		if code, body := postCommand(t, ts, http.Header{"Content-Type": {ct}}, `{"line":"produce orders key=x value=evil partition=0"}`); code != http.StatusUnsupportedMediaType {
			t.Errorf("Content-Type %q: got %d %s, want 415", ct, code, body)
		}
	}
	if after := s.live.run("show log orders/0").Output; after != before || strings.Contains(after, "evil") {
		t.Fatalf("a refused POST changed the cluster:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// The server's own pages, and curl with a JSON body, still drive it.
func TestSameOriginJSONPostRuns(t *testing.T) {
	_, ts := newTestServer(t)
	for name, h := range map[string]http.Header{
		"same origin": {"Origin": {ts.URL}, "Sec-Fetch-Site": {"same-origin"}, "Content-Type": {"application/json"}},
		"curl":        {"Content-Type": {"application/json; charset=utf-8"}},
	} {
		code, body := postCommand(t, ts, h, `{"line":"topic describe orders"}`)
		if code != http.StatusOK || !strings.Contains(body, `"ok":true`) {
			t.Errorf("%s: got %d %s", name, code, body)
		}
	}
}
