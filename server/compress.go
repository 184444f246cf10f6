package server

import (
	"net/http"
	"strings"

	"github.com/klauspost/compress/gzhttp"
	"github.com/labstack/echo/v4"
)

// compressed gzips a route's responses with klauspost's gzhttp.
//
// echo.WrapMiddleware is not enough: gzhttp returns its pooled writer when
// the wrapped handler returns, but echo writes a handler's error (a 404, say)
// afterwards, through that released writer. So errors are written here,
// inside the wrapper, while the writer is still valid.
func compressed(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		res := c.Response()
		original := res.Writer
		defer func() { res.Writer = original }()
		onTheFly(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			res.Writer = w
			if tags := r.Header.Get("If-None-Match"); tags != "" {
				r.Header.Set("If-None-Match", withoutCodingSuffixes(tags))
			}
			c.SetRequest(r)
			if err := next(c); err != nil {
				c.Error(err)
			}
		})).ServeHTTP(original, c.Request())
		return nil
	}
}

// onTheFly is gzhttp's wrapper whose compressed responses carry the
// handler's ETag with "-gzip" or "-zstd" added: a strong ETag names one
// representation's bytes, and the compressed ones are not the file's.
var onTheFly = func() func(http.Handler) http.HandlerFunc {
	wrap, err := gzhttp.NewWrapper(gzhttp.SuffixETag("-gzip"))
	if err != nil {
		panic(err) // fixed, valid options
	}
	return wrap
}()

// withoutCodingSuffixes turns the tags a browser revalidates with back
// into the file's own: gzhttp suffixes the ETag of what it compressed, but
// compares nothing itself, so the handler would see "X-gzip" against its
// "X" and send the whole file again on every reload. The bytes the client
// holds decode to the file the tag names, so a match is a true 304.
func withoutCodingSuffixes(tags string) string {
	for _, suffix := range []string{`-gzip"`, `-zstd"`} {
		tags = strings.ReplaceAll(tags, suffix, `"`)
	}
	return tags
}
