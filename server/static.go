package server

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
)

// precompressed is one encoding internal/precompress writes beside a
// static file, in the order the server prefers them: brotli makes the
// WASM module about 30% smaller than gzip does, and quality 11 (.br, a
// CPU-minute) 15% smaller than quality 6 (.fast.br, a second). `make run`
// writes .fast.br before the server starts and .br in the background
// after, so the server starts sending .br when it lands.
var precompressed = []struct {
	coding, suffix string
}{
	{"br", ".br"},
	{"br", ".fast.br"},
	{"gzip", ".gz"},
}

// staticFiles serves the static folder. A file with a current sibling is
// sent as the first current one whose coding the client accepts, looked
// for at each request; anything else is served as before, compressed on
// the fly by compressed.
//
// Every file is sent with a strong ETag (a hash of the bytes sent) and
// "Cache-Control: no-cache": the browser keeps its copy but asks each time,
// and a 304 costs a round trip, not the multi-MB module. A max-age would
// save that round trip but let a page keep the old module after `make
// wasm`, and app.js and loglab.wasm must change together.
type staticFiles struct {
	fsys   fs.FS
	etags  etagCache
	direct echo.HandlerFunc // the on-the-fly path, wrapped in compressed
}

func newStaticFiles(dir string) *staticFiles {
	s := &staticFiles{fsys: os.DirFS(dir)}
	s.direct = compressed(s.serveIdentity)
	return s
}

func (s *staticFiles) serve(c echo.Context) error {
	name, ok := s.fileName(c)
	if !ok {
		return echo.ErrNotFound
	}
	for _, p := range precompressed {
		// The siblings are this server's representations of their file, not
		// files of their own: asked for by name, they are not found, so no
		// page comes to depend on them.
		if strings.HasSuffix(name, p.suffix) {
			return echo.ErrNotFound
		}
	}
	orig, err := fs.Stat(s.fsys, name)
	if err != nil || !orig.Mode().IsRegular() {
		return echo.ErrNotFound
	}
	c.Response().Header().Add("Vary", "Accept-Encoding")
	accepted := acceptedCodings(c.Request().Header.Get("Accept-Encoding"))
	for _, p := range precompressed {
		if !accepted(p.coding) {
			continue
		}
		sib, err := fs.Stat(s.fsys, name+p.suffix)
		// A sibling older than its file is from an earlier build (or the
		// file was edited since): serving it would send stale code.
		if err != nil || !sib.Mode().IsRegular() || sib.ModTime().Before(orig.ModTime()) {
			continue
		}
		return s.serveFile(c, name+p.suffix, sib, contentType(name), p.coding)
	}
	return s.direct(c)
}

// serveIdentity sends the file itself; compressed may encode it.
func (s *staticFiles) serveIdentity(c echo.Context) error {
	name, _ := s.fileName(c)
	info, err := fs.Stat(s.fsys, name)
	if err != nil || !info.Mode().IsRegular() {
		return echo.ErrNotFound
	}
	return s.serveFile(c, name, info, contentType(name), "")
}

// fileName is the request's path inside the folder, unescaped as echo's
// static handler does; fs.ValidPath then refuses "..", "." and empty
// segments and absolute paths (also those spelled %2e%2e or %2F), so
// nothing outside the folder is reachable.
func (s *staticFiles) fileName(c echo.Context) (string, bool) {
	name, err := url.PathUnescape(c.Param("*"))
	return name, err == nil && name != "." && fs.ValidPath(name)
}

func (s *staticFiles) serveFile(c echo.Context, name string, info fs.FileInfo, ctype, coding string) error {
	f, err := s.fsys.Open(name)
	if err != nil {
		return echo.ErrNotFound
	}
	defer f.Close()
	rs, ok := f.(interface {
		Read([]byte) (int, error)
		Seek(int64, int) (int64, error)
	})
	if !ok {
		return echo.ErrNotFound
	}
	tag, err := s.etags.get(s.fsys, name, info)
	if err != nil {
		return echo.ErrNotFound
	}
	h := c.Response().Header()
	h.Set("Cache-Control", "no-cache")
	h.Set("ETag", tag)
	h.Set("Content-Type", ctype)
	if coding != "" {
		h.Set("Content-Encoding", coding)
		// http.ServeContent leaves Content-Length out of an encoded
		// response (it expects one encoded on the fly), so a large
		// sibling would go out chunked and the browser could show no
		// download progress. A Range asks for part of the encoded bytes;
		// ServeContent answers it with its own framing.
		if c.Request().Header.Get("Range") == "" {
			h.Set("Content-Length", strconv.FormatInt(info.Size(), 10))
		}
	}
	// No Last-Modified: the ETag is the validator, so a rebuilt module with
	// an older mtime (a restored backup) is still seen as changed.
	http.ServeContent(c.Response(), c.Request(), name, time.Time{}, rs)
	return nil
}

func contentType(name string) string {
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return "application/octet-stream"
}

// acceptedCodings reports which content codings an Accept-Encoding value
// allows (RFC 9110 §12.5.3): a coding listed with q=0, or not listed when
// no "*" is, is refused.
func acceptedCodings(header string) func(string) bool {
	q := map[string]float64{}
	for _, part := range strings.Split(header, ",") {
		fields := strings.Split(part, ";")
		coding := strings.ToLower(strings.TrimSpace(fields[0]))
		if coding == "" {
			continue
		}
		weight := 1.0
		for _, param := range fields[1:] {
			k, v, _ := strings.Cut(strings.TrimSpace(param), "=")
			if strings.EqualFold(k, "q") {
				if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
					weight = f
				}
			}
		}
		q[coding] = weight
	}
	return func(coding string) bool {
		if w, ok := q[coding]; ok {
			return w > 0
		}
		if coding == "gzip" {
			if w, ok := q["x-gzip"]; ok {
				return w > 0
			}
		}
		w, ok := q["*"]
		return ok && w > 0
	}
}

// etagCache hashes each file version once: a version is its path, size and
// modification time, which `make wasm` changes by writing the file anew.
type etagCache struct {
	mu   sync.Mutex
	tags map[string]etagEntry
}

type etagEntry struct {
	size    int64
	modTime time.Time
	tag     string
}

func (e *etagCache) get(fsys fs.FS, name string, info fs.FileInfo) (string, error) {
	e.mu.Lock()
	entry, ok := e.tags[name]
	e.mu.Unlock()
	if ok && entry.size == info.Size() && entry.modTime.Equal(info.ModTime()) {
		return entry.tag, nil
	}
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return "", err
	}
	if int64(len(data)) != info.Size() {
		return "", errors.New("static file changed while hashed")
	}
	sum := sha256.Sum256(data)
	// The hash is of the bytes sent, so each encoding has its own tag; the
	// suffix only makes a tag's encoding readable in the browser's tools.
	tag := `"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + codingSuffix(name) + `"`
	e.mu.Lock()
	if e.tags == nil {
		e.tags = map[string]etagEntry{}
	}
	e.tags[name] = etagEntry{size: info.Size(), modTime: info.ModTime(), tag: tag}
	e.mu.Unlock()
	return tag, nil
}

func codingSuffix(name string) string {
	switch {
	case strings.HasSuffix(name, ".br"):
		return "-br"
	case strings.HasSuffix(name, ".gz"):
		return "-gz"
	}
	return ""
}
