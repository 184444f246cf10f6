// Command precompress writes compressed siblings next to each file named
// on its command line, so the server can send the browser lab's static
// files (above all the 19 MB loglab.wasm) compressed at high levels once
// per build, instead of at a fast level on every request.
//
//	go run ./internal/precompress [-fast] static/loglab.wasm static/app.js
//
// By default it writes NAME.br, brotli at quality 11, the smallest (the
// module to 17% of its size, 3.25 MB, in about a CPU-minute), and removes
// NAME.fast.br, which it supersedes. With -fast it writes NAME.fast.br,
// brotli at quality 6 (20%, 3.80 MB, in about a second), unless NAME.br
// is current. Both write NAME.gz (gzip -9) for clients without brotli.
// `make run` writes the fast siblings before the server starts and the
// quality 11 ones in the background after; the server sends the best
// current one at each request (server/static.go).
//
// Each output is written to a temporary file and renamed into place, so a
// server reading the folder never sees half a file; and it carries the
// modification time its source had when it was read, so the server's test
// that a sibling is current (not older than its file) holds only for the
// file it encodes: a module rebuilt during the minute of brotli leaves that
// sibling stale rather than current and wrong.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
)

// The sibling suffixes the server looks for, in its order of preference.
const (
	bestSuffix = ".br"
	fastSuffix = ".fast.br"
	gzipSuffix = ".gz"
)

// The brotli settings of each pass, measured on the 19.1 MB module, one
// core of a quiet machine: quality 11 3.25 MB in 60 s, 10 3.36 MB in 30 s,
// 9 3.72 MB in 3 s, 6 3.80 MB in 1.0 s, 5 3.85 MB in 0.7 s, 4 4.25 MB;
// gzip -9 4.65 MB in 1.6 s. The fast pass keeps the module under the 4 MB
// budget while quality 11 runs; quality 11 leaves room for it to grow.
// Window 2^24 lets quality 11's matches reach 16 MB back; at quality 6
// 2^22 compresses slightly better (3.83 MB with 2^24).
var (
	best = brotli.WriterOptions{Quality: brotli.BestCompression, LGWin: 24}
	fast = brotli.WriterOptions{Quality: 6, LGWin: 22}
)

func main() {
	quick := flag.Bool("fast", false, "write NAME.fast.br at brotli quality 6 (unless NAME.br is current) instead of NAME.br at quality 11")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: precompress [-fast] FILE...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	// make run starts the quality 11 pass in the background, where a
	// non-interactive shell ignores SIGINT: asking for it lets Ctrl-C stop
	// the pass with the server. A temporary file being renamed is finished
	// or removed first.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		pending.Lock() // held while a temporary file exists
		os.Exit(130)
	}()
	// One line per large file (the module), one for all the small ones.
	var small written
	upToDate := 0
	for _, name := range flag.Args() {
		w, err := precompress(name, *quick)
		switch {
		case err != nil:
			fmt.Fprintln(os.Stderr, "precompress:", err)
			os.Exit(1)
		case w.files == 0:
			upToDate++
		case w.size >= 1<<20:
			fmt.Printf("precompress: %s: %s\n", name, w)
		default:
			small.add(w)
		}
	}
	if small.files > 0 {
		fmt.Printf("precompress: %s: %s\n", plural(small.files, "smaller file"), small)
	}
	if upToDate > 0 {
		fmt.Printf("precompress: %d of %d files' siblings up to date\n", upToDate, flag.NArg())
	}
}

// written is what precompress wrote for one file or more.
type written struct {
	files        int
	size, br, gz int // br and gz: 0 when not written
	quality      int
	elapsed      time.Duration
}

func (w *written) add(o written) {
	w.files += o.files
	w.size += o.size
	w.br += o.br
	w.gz += o.gz
	w.quality = o.quality
	w.elapsed += o.elapsed
}

func (w written) String() string {
	s := fmt.Sprintf("%d bytes", w.size)
	if w.br > 0 {
		s += fmt.Sprintf(", brotli quality %d %d (%.1f%%)", w.quality, w.br, percent(w.br, w.size))
	}
	if w.gz > 0 {
		s += fmt.Sprintf(", gzip -9 %d (%.1f%%)", w.gz, percent(w.gz, w.size))
	}
	return s + fmt.Sprintf(", in %.1f s", w.elapsed.Seconds())
}

// precompress writes name's siblings that are not current and says what
// it wrote (files 0: nothing).
func precompress(name string, quick bool) (written, error) {
	brSuffix, opts := bestSuffix, best
	if quick {
		brSuffix, opts = fastSuffix, fast
	}
	needBr := !current(name, bestSuffix) && !(quick && current(name, fastSuffix))
	needGz := !current(name, gzipSuffix)
	if !needBr && !needGz {
		return written{}, nil
	}
	src, modTime, err := read(name)
	if err != nil {
		return written{}, err
	}
	start := time.Now()
	w := written{files: 1, size: len(src), quality: opts.Quality}
	if needBr {
		br, err := compress(src, func(w io.Writer) io.WriteCloser { return brotli.NewWriterOptions(w, opts) })
		if err != nil {
			return written{}, err
		}
		if err := write(name+brSuffix, br, modTime); err != nil {
			return written{}, err
		}
		w.br = len(br)
	}
	if needGz {
		gz, err := compress(src, func(w io.Writer) io.WriteCloser {
			zw, _ := gzip.NewWriterLevel(w, gzip.BestCompression) // a valid level cannot fail
			return zw
		})
		if err != nil {
			return written{}, err
		}
		if err := write(name+gzipSuffix, gz, modTime); err != nil {
			return written{}, err
		}
		w.gz = len(gz)
	}
	if !quick && current(name, bestSuffix) {
		// The quick sibling is superseded: the server would never send it.
		if err := os.Remove(name + fastSuffix); err != nil && !os.IsNotExist(err) {
			return written{}, err
		}
	}
	w.elapsed = time.Since(start)
	return w, nil
}

// read returns the file and the modification time it had before it was
// read: if it is rebuilt meanwhile, the siblings get the older time and
// are stale, never current with the old bytes.
func read(name string) ([]byte, time.Time, error) {
	info, err := os.Stat(name)
	if err != nil {
		return nil, time.Time{}, err
	}
	src, err := os.ReadFile(name)
	return src, info.ModTime(), err
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

// pending is held while a temporary file exists, so an interrupted pass
// leaves none behind in the static folder.
var pending sync.Mutex

// write puts data in name through a temporary file renamed into place,
// dated modTime (its source's, when it was read).
func write(name string, data []byte, modTime time.Time) error {
	pending.Lock()
	defer pending.Unlock()
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
	if err := os.Chtimes(tmp.Name(), modTime, modTime); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func percent(part, whole int) float64 {
	if whole == 0 {
		return 0
	}
	return 100 * float64(part) / float64(whole)
}

// current reports whether name's sibling with this suffix exists and is
// not older than name, the test the server makes before sending it.
func current(name, suffix string) bool {
	src, err := os.Stat(name)
	if err != nil {
		return false
	}
	sib, err := os.Stat(name + suffix)
	return err == nil && sib.Mode().IsRegular() && !sib.ModTime().Before(src.ModTime())
}
