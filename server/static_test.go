package server

import (
	"bytes"
	"compress/gzip"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/labstack/echo/v4"
)

// staticServer serves a folder holding loglab.wasm with .br and .gz
// siblings written as `make wasm` writes them, and app.js without any.
func staticServer(t *testing.T) (dir string, wasm []byte, ts *httptest.Server) {
	t.Helper()
	dir = t.TempDir()
	// Incompressible bytes, so each sibling is larger than net/http's
	// response buffer and would go out chunked, without Content-Length,
	// unless the handler sets it.
	wasm = make([]byte, 64<<10)
	rand.NewChaCha8([32]byte{1}).Read(wasm)
	write := func(name string, data []byte, mtime time.Time) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	built := time.Now().Add(-time.Hour)
	write("loglab.wasm", wasm, built)
	var br, gz bytes.Buffer
	bw := brotli.NewWriter(&br)
	bw.Write(wasm)
	bw.Close()
	gw := gzip.NewWriter(&gz)
	gw.Write(wasm)
	gw.Close()
	write("loglab.wasm.br", br.Bytes(), built)
	write("loglab.wasm.gz", gz.Bytes(), built)
	write("app.js", []byte(strings.Repeat("// glue\n", 200)), built)
	e := echo.New()
	e.GET("/static/*", newStaticFiles(dir).serve)
	ts = httptest.NewServer(e)
	t.Cleanup(ts.Close)
	return dir, wasm, ts
}

func fetchStatic(t *testing.T, ts *httptest.Server, path string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, ts.URL+path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	// The transport, not a client, so no Accept-Encoding is added and
	// nothing is decoded behind the test's back.
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

func decode(t *testing.T, coding string, body []byte) []byte {
	t.Helper()
	var r io.Reader = bytes.NewReader(body)
	switch coding {
	case "br":
		r = brotli.NewReader(r)
	case "gzip":
		gr, err := gzip.NewReader(r)
		if err != nil {
			t.Fatal(err)
		}
		r = gr
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("decoding %s: %v", coding, err)
	}
	return out
}

func TestStaticPrecompressedSiblingChosenByAcceptEncoding(t *testing.T) {
	_, wasm, ts := staticServer(t)
	for _, tc := range []struct {
		accept, want string
	}{
		{"gzip, deflate, br, zstd", "br"},
		{"br;q=0.5, gzip", "br"}, // any accepted coding will do; ours is brotli first
		{"gzip", "gzip"},
		{"br;q=0, gzip", "gzip"},
		{"*", "br"},
	} {
		resp, body := fetchStatic(t, ts, "/static/loglab.wasm", "Accept-Encoding", tc.accept)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%q: status %d", tc.accept, resp.StatusCode)
		}
		if got := resp.Header.Get("Content-Encoding"); got != tc.want {
			t.Errorf("Accept-Encoding %q: Content-Encoding %q, want %q", tc.accept, got, tc.want)
			continue
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/wasm" {
			t.Errorf("%q: Content-Type %q; instantiateStreaming needs application/wasm", tc.accept, ct)
		}
		if resp.Header.Get("Vary") != "Accept-Encoding" {
			t.Errorf("%q: Vary %q", tc.accept, resp.Header.Get("Vary"))
		}
		if resp.Header.Get("Content-Length") != strconv.Itoa(len(body)) {
			t.Errorf("%q: Content-Length %q for %d bytes", tc.accept, resp.Header.Get("Content-Length"), len(body))
		}
		if resp.Header.Get("Cache-Control") != "no-cache" || resp.Header.Get("ETag") == "" {
			t.Errorf("%q: Cache-Control %q, ETag %q", tc.accept, resp.Header.Get("Cache-Control"), resp.Header.Get("ETag"))
		}
		if !bytes.Equal(decode(t, tc.want, body), wasm) {
			t.Errorf("%q: the %s body does not decode to the module", tc.accept, tc.want)
		}
	}
}

func TestStaticIdentityWhenNoSiblingApplies(t *testing.T) {
	dir, wasm, ts := staticServer(t)
	resp, body := fetchStatic(t, ts, "/static/loglab.wasm", "Accept-Encoding", "identity")
	if ce := resp.Header.Get("Content-Encoding"); ce != "" || !bytes.Equal(body, wasm) {
		t.Errorf("no coding accepted: Content-Encoding %q, body equal %v", ce, bytes.Equal(body, wasm))
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/wasm" {
		t.Errorf("identity Content-Type %q", ct)
	}

	// A rebuilt module is newer than its siblings: they are stale and must
	// not be sent; the module goes out as it is, compressed on the fly.
	rebuilt := append([]byte("rebuilt "), wasm...)
	if err := os.WriteFile(filepath.Join(dir, "loglab.wasm"), rebuilt, 0o644); err != nil {
		t.Fatal(err)
	}
	resp, body = fetchStatic(t, ts, "/static/loglab.wasm", "Accept-Encoding", "br")
	if ce := resp.Header.Get("Content-Encoding"); ce != "" || !bytes.Equal(body, rebuilt) {
		t.Errorf("stale siblings, br only: Content-Encoding %q, body is the rebuilt module %v", ce, bytes.Equal(body, rebuilt))
	}
	resp, body = fetchStatic(t, ts, "/static/loglab.wasm", "Accept-Encoding", "gzip")
	if ce := resp.Header.Get("Content-Encoding"); ce != "gzip" || !bytes.Equal(decode(t, "gzip", body), rebuilt) {
		t.Errorf("stale siblings, gzip: Content-Encoding %q, not the rebuilt module compressed on the fly", ce)
	}

	// app.js has no siblings: compressed on the fly, as before.
	resp, body = fetchStatic(t, ts, "/static/app.js", "Accept-Encoding", "br")
	if ce := resp.Header.Get("Content-Encoding"); ce != "" || !strings.HasPrefix(string(body), "// glue") {
		t.Errorf("app.js without siblings, br only: Content-Encoding %q", ce)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/javascript") {
		t.Errorf("app.js Content-Type %q", ct)
	}
}

// make run starts the server with quick siblings (brotli quality 6 in
// .fast.br, a second of work) and writes quality 11 (.br, a CPU-minute)
// in the background: the server sends .fast.br while .br is stale or
// missing, and .br from the first request after it lands.
func TestStaticSendsTheBestCurrentSibling(t *testing.T) {
	dir, _, ts := staticServer(t)
	write := func(name string, data []byte, mtime time.Time) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	brotliAt := func(quality int, data []byte) []byte {
		var b bytes.Buffer
		w := brotli.NewWriterLevel(&b, quality)
		w.Write(data)
		w.Close()
		return b.Bytes()
	}
	// A rebuilt module: the .br and .gz of the last build are stale.
	rebuilt := bytes.Repeat([]byte("rebuilt module, compressible "), 4000)
	built := time.Now()
	write("loglab.wasm", rebuilt, built)
	quick, smallest := brotliAt(1, rebuilt), brotliAt(11, rebuilt)
	if bytes.Equal(quick, smallest) {
		t.Fatal("the two qualities wrote the same bytes: the test cannot tell them apart")
	}
	write("loglab.wasm.fast.br", quick, built)

	resp, body := fetchStatic(t, ts, "/static/loglab.wasm", "Accept-Encoding", "gzip, deflate, br, zstd")
	if ce := resp.Header.Get("Content-Encoding"); ce != "br" || !bytes.Equal(body, quick) {
		t.Fatalf("stale .br, current .fast.br: Content-Encoding %q, %d bytes, want .fast.br's %d", ce, len(body), len(quick))
	}
	if !bytes.Equal(decode(t, "br", body), rebuilt) {
		t.Errorf(".fast.br sent does not decode to the rebuilt module")
	}
	if resp.Header.Get("Content-Length") != strconv.Itoa(len(quick)) {
		t.Errorf(".fast.br: Content-Length %q for %d bytes", resp.Header.Get("Content-Length"), len(quick))
	}
	quickTag := resp.Header.Get("ETag")

	// Quality 11 lands while the server runs.
	write("loglab.wasm.br", smallest, built)
	resp, body = fetchStatic(t, ts, "/static/loglab.wasm", "Accept-Encoding", "gzip, deflate, br, zstd", "If-None-Match", quickTag)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Encoding") != "br" || !bytes.Equal(body, smallest) {
		t.Fatalf("after .br landed: %d, Content-Encoding %q, %d bytes, want .br's %d", resp.StatusCode, resp.Header.Get("Content-Encoding"), len(body), len(smallest))
	}
	if tag := resp.Header.Get("ETag"); tag == quickTag || tag == "" {
		t.Errorf(".br sent with ETag %q, .fast.br's was %q: a browser holding .fast.br would keep it", tag, quickTag)
	}

	// A stale .fast.br is not sent either.
	rebuiltAgain := append([]byte("again "), rebuilt...)
	write("loglab.wasm", rebuiltAgain, built.Add(time.Hour))
	resp, body = fetchStatic(t, ts, "/static/loglab.wasm", "Accept-Encoding", "br")
	if ce := resp.Header.Get("Content-Encoding"); ce != "" || !bytes.Equal(body, rebuiltAgain) {
		t.Errorf("every sibling stale, br only: Content-Encoding %q, body is the module %v", ce, bytes.Equal(body, rebuiltAgain))
	}
}

func TestStaticETagRevalidates(t *testing.T) {
	dir, _, ts := staticServer(t)
	tags := map[string]string{}
	for _, accept := range []string{"br", "gzip", "identity"} {
		first, _ := fetchStatic(t, ts, "/static/loglab.wasm", "Accept-Encoding", accept)
		again, _ := fetchStatic(t, ts, "/static/loglab.wasm", "Accept-Encoding", accept)
		tag := first.Header.Get("ETag")
		if tag == "" || strings.HasPrefix(tag, "W/") || tag != again.Header.Get("ETag") {
			t.Fatalf("%s: ETags %q then %q, want one strong tag", accept, tag, again.Header.Get("ETag"))
		}
		tags[accept] = tag
		resp, body := fetchStatic(t, ts, "/static/loglab.wasm", "Accept-Encoding", accept, "If-None-Match", tag)
		if resp.StatusCode != http.StatusNotModified || len(body) != 0 {
			t.Errorf("%s: If-None-Match its own tag got %d with %d bytes, want 304", accept, resp.StatusCode, len(body))
		}
	}
	if tags["br"] == tags["gzip"] || tags["br"] == tags["identity"] || tags["gzip"] == tags["identity"] {
		t.Errorf("encodings share a strong ETag: %v", tags)
	}
	// Another encoding's tag is not a match: a cache must not answer a
	// gzip request with the brotli bytes it holds.
	resp, _ := fetchStatic(t, ts, "/static/loglab.wasm", "Accept-Encoding", "gzip", "If-None-Match", tags["br"])
	if resp.StatusCode != http.StatusOK {
		t.Errorf("gzip request with the brotli tag got %d, want 200", resp.StatusCode)
	}

	// A new build changes the tag, so the next page load fetches it.
	later := time.Now()
	for _, name := range []string{"loglab.wasm", "loglab.wasm.br"} {
		p := filepath.Join(dir, name)
		data, _ := os.ReadFile(p)
		if name == "loglab.wasm.br" {
			var br bytes.Buffer
			bw := brotli.NewWriter(&br)
			bw.Write([]byte("a new module"))
			bw.Close()
			data = br.Bytes()
		}
		os.WriteFile(p, data, 0o644)
		os.Chtimes(p, later, later)
	}
	resp, body := fetchStatic(t, ts, "/static/loglab.wasm", "Accept-Encoding", "br", "If-None-Match", tags["br"])
	if resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") == tags["br"] || string(decode(t, "br", body)) != "a new module" {
		t.Errorf("after a rebuild: %d, ETag %q (was %q)", resp.StatusCode, resp.Header.Get("ETag"), tags["br"])
	}
}

func TestStaticRefusesSiblingsAndEscapes(t *testing.T) {
	dir, _, ts := staticServer(t)
	if err := os.WriteFile(filepath.Join(dir, "loglab.wasm.fast.br"), []byte("quick"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{
		"/static/loglab.wasm.br",
		"/static/loglab.wasm.fast.br",
		"/static/loglab.wasm.gz",
		"/static/%2e%2e/static.go",
		"/static/..%2fstatic.go",
		"/static/%2fetc%2fpasswd",
		"/static/",
		"/static/missing.js",
	} {
		if resp, _ := fetchStatic(t, ts, path, "Accept-Encoding", "br, gzip"); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, resp.StatusCode)
		}
	}
}

// A file compressed on the fly carries the file's ETag with gzhttp's
// "-gzip" or "-zstd" suffix; the browser revalidates with that tag, and
// it must match, or every reload downloads the whole module again (seen:
// 200 and 5.41 MB of zstd on each reload when the siblings were stale).
func TestStaticOnTheFlyETagRevalidates(t *testing.T) {
	_, _, ts := staticServer(t)
	for _, accept := range []string{"gzip", "zstd"} {
		first, body := fetchStatic(t, ts, "/static/app.js", "Accept-Encoding", accept)
		tag := first.Header.Get("ETag")
		if first.Header.Get("Content-Encoding") != accept || !strings.HasSuffix(tag, "-"+accept+`"`) || len(body) == 0 {
			t.Fatalf("%s: Content-Encoding %q, ETag %q: not compressed on the fly", accept, first.Header.Get("Content-Encoding"), tag)
		}
		resp, body := fetchStatic(t, ts, "/static/app.js", "Accept-Encoding", accept, "If-None-Match", tag)
		if resp.StatusCode != http.StatusNotModified || len(body) != 0 {
			t.Errorf("%s: If-None-Match %s got %d with %d bytes, want 304", accept, tag, resp.StatusCode, len(body))
		}
	}
	// A tag of other bytes still misses.
	resp, _ := fetchStatic(t, ts, "/static/app.js", "Accept-Encoding", "gzip", "If-None-Match", `"other-gzip"`)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("If-None-Match of other bytes got %d, want 200", resp.StatusCode)
	}
}
