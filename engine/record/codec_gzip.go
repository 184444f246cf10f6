package record

import (
	"bytes"
	"sync"

	"github.com/klauspost/compress/gzip"
)

// Gzip is a standard gzip stream (RFC 1952), as Java's GZIPOutputStream
// writes it; Kafka's default level is zlib's default, 6.

// gzip writers and readers carry large tables; reuse them. A pool changes
// no output: each stream is reset before use.
var (
	gzipWriters = sync.Pool{New: func() any {
		w, _ := gzip.NewWriterLevel(nil, gzip.DefaultCompression)
		return w
	}}
	gzipReaders sync.Pool
)

func compressGzip(dst, src []byte) ([]byte, error) {
	out := appendWriter{buf: dst}
	w := gzipWriters.Get().(*gzip.Writer)
	defer gzipWriters.Put(w)
	w.Reset(&out)
	if _, err := w.Write(src); err != nil {
		return dst, err
	}
	if err := w.Close(); err != nil {
		return dst, err
	}
	return out.buf, nil
}

func decompressGzip(src []byte, limit int) ([]byte, error) {
	in := bytes.NewReader(src)
	r, _ := gzipReaders.Get().(*gzip.Reader)
	if r == nil {
		var err error
		if r, err = gzip.NewReader(in); err != nil {
			return nil, err
		}
	} else if err := r.Reset(in); err != nil {
		return nil, err
	}
	defer gzipReaders.Put(r)
	return readAllLimited(r, src, limit)
}
