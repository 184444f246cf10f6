// Command precompress writes NAME.br and NAME.gz next to each file named on
// its command line, so the server can send the browser lab's static files
// (above all the multi-MB loglab.wasm) compressed at the highest levels
// once per build, instead of at a fast level on every request.
//
//	go run ./internal/precompress static/loglab.wasm static/app.js
//
// Each output is written to a temporary file and renamed into place, so a
// server reading the folder during `make wasm` never sees half a file; and
// it is written after its source, so its modification time is not older
// than the source's: the server's test that a sibling is current.
package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: precompress FILE...")
		os.Exit(2)
	}
	for _, name := range os.Args[1:] {
		if err := precompress(name); err != nil {
			fmt.Fprintln(os.Stderr, "precompress:", err)
			os.Exit(1)
		}
	}
}

// precompress writes name.br and name.gz and prints their sizes, unless
// both are already current: brotli at quality 11 takes minutes of CPU on
// the WASM module, and go build leaves an up-to-date module untouched.
func precompress(name string) error {
	if current(name) {
		fmt.Printf("%s: .br and .gz up to date\n", name)
		return nil
	}
	src, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	br, err := compress(src, func(w io.Writer) io.WriteCloser {
		// Quality 11, the maximum, is the only one that keeps the 21 MB module
		// under 4 MB (3.61 MB; quality 9 gives 4.12 MB, 6 gives 4.23 MB); it
		// costs about 2.5 CPU-minutes, once per changed module. Window 2^24
		// lets matches reach 16 MB back.
		return brotli.NewWriterOptions(w, brotli.WriterOptions{Quality: brotli.BestCompression, LGWin: 24})
	})
	if err != nil {
		return err
	}
	gz, err := compress(src, func(w io.Writer) io.WriteCloser {
		zw, _ := gzip.NewWriterLevel(w, gzip.BestCompression) // a valid level cannot fail
		return zw
	})
	if err != nil {
		return err
	}
	if err := writeAtomically(name+".br", br); err != nil {
		return err
	}
	if err := writeAtomically(name+".gz", gz); err != nil {
		return err
	}
	fmt.Printf("%s: %d bytes, brotli %d (%.1f%%), gzip %d (%.1f%%)\n", name, len(src),
		len(br), percent(len(br), len(src)), len(gz), percent(len(gz), len(src)))
	return nil
}

func compress(src []byte, newWriter func(io.Writer) io.WriteCloser) ([]byte, error) {
	var buf bytes.Buffer
	w := newWriter(&buf)
	if _, err := w.Write(src); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeAtomically(name string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(name), ".precompress-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}

func percent(part, whole int) float64 {
	if whole == 0 {
		return 0
	}
	return 100 * float64(part) / float64(whole)
}

// current reports whether name's siblings exist and are not older than it,
// the test the server makes before sending one.
func current(name string) bool {
	src, err := os.Stat(name)
	if err != nil {
		return false
	}
	for _, suffix := range []string{".br", ".gz"} {
		sib, err := os.Stat(name + suffix)
		if err != nil || sib.ModTime().Before(src.ModTime()) {
			return false
		}
	}
	return true
}
