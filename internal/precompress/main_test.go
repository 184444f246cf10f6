package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
)

func TestPrecompressSiblingsDecodeToTheFileAndAreRewrittenWhenStale(t *testing.T) {
	name := filepath.Join(t.TempDir(), "loglab.wasm")
	src := bytes.Repeat([]byte("\x00asm module "), 1000)
	if err := os.WriteFile(name, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := precompress(name, false); err != nil {
		t.Fatal(err)
	}
	checkSiblings(t, name, bestSuffix, src)

	// Current siblings are left alone (the minute of brotli is skipped):
	// mark them old-but-current and see their times survive.
	past := time.Now().Add(-time.Hour)
	for _, p := range []string{name, name + ".br", name + ".gz"} {
		os.Chtimes(p, past, past)
	}
	if w, err := precompress(name, false); err != nil || w.files != 0 {
		t.Fatalf("current siblings: wrote %v, %v", w, err)
	}
	if info, _ := os.Stat(name + ".br"); !info.ModTime().Equal(past) {
		t.Errorf("current .br rewritten")
	}

	// A rebuilt file is newer than its siblings: they are written again.
	src = append(src, "rebuilt"...)
	if err := os.WriteFile(name, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := precompress(name, false); err != nil {
		t.Fatal(err)
	}
	checkSiblings(t, name, bestSuffix, src)
}

// make run writes the quick brotli sibling, then quality 11 in the
// background; the next make run finds quality 11 current and writes nothing.
func TestPrecompressFastThenBest(t *testing.T) {
	name := filepath.Join(t.TempDir(), "loglab.wasm")
	src := bytes.Repeat([]byte("\x00asm module "), 1000)
	if err := os.WriteFile(name, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := precompress(name, true); err != nil {
		t.Fatal(err)
	}
	checkSiblings(t, name, fastSuffix, src)
	if _, err := os.Stat(name + bestSuffix); !os.IsNotExist(err) {
		t.Errorf("the fast pass wrote %s (%v)", bestSuffix, err)
	}
	if w, err := precompress(name, true); err != nil || w.files != 0 {
		t.Errorf("fast pass over current fast siblings: wrote %v, %v", w, err)
	}

	// The quality 11 pass is not satisfied by the quick sibling: it writes
	// .br and removes .fast.br, which the server would no longer send.
	if w, err := precompress(name, false); err != nil || w.br == 0 || w.gz != 0 {
		t.Fatalf("best pass after the fast one: wrote %v, %v; want .br alone", w, err)
	}
	checkSiblings(t, name, bestSuffix, src)
	if _, err := os.Stat(name + fastSuffix); !os.IsNotExist(err) {
		t.Errorf("%s left beside a current %s (%v)", fastSuffix, bestSuffix, err)
	}
	if w, err := precompress(name, true); err != nil || w.files != 0 {
		t.Errorf("fast pass over a current .br: wrote %v, %v", w, err)
	}
	if _, err := os.Stat(name + fastSuffix); !os.IsNotExist(err) {
		t.Errorf("fast pass wrote %s beside a current %s (%v)", fastSuffix, bestSuffix, err)
	}

	// A rebuilt module: .br is stale, the fast pass writes .fast.br again.
	src = append(src, "rebuilt"...)
	if err := os.WriteFile(name, src, 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	os.Chtimes(name, later, later)
	if _, err := precompress(name, true); err != nil {
		t.Fatal(err)
	}
	checkSiblings(t, name, fastSuffix, src)
	if current(name, bestSuffix) {
		t.Errorf("stale .br reported current")
	}
}

// A file rebuilt while its siblings are compressed (a minute, for quality
// 11) must not leave them current: they encode the old bytes.
func TestPrecompressSiblingOfAFileChangedMeanwhileIsStale(t *testing.T) {
	name := filepath.Join(t.TempDir(), "loglab.wasm")
	built := time.Now().Add(-time.Hour)
	if err := os.WriteFile(name, []byte("old module"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(name, built, built)
	old, modTime, err := read(name)
	if err != nil {
		t.Fatal(err)
	}
	// The rebuild lands between the read and the sibling's write.
	if err := os.WriteFile(name, []byte("new module"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := write(name+bestSuffix, old, modTime); err != nil {
		t.Fatal(err)
	}
	if current(name, bestSuffix) {
		t.Errorf("a sibling of the old bytes is current for the rebuilt file")
	}
}

func checkSiblings(t *testing.T, name, brSuffix string, src []byte) {
	t.Helper()
	br, err := os.ReadFile(name + brSuffix)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(brotli.NewReader(bytes.NewReader(br)))
	if err != nil || !bytes.Equal(got, src) {
		t.Errorf("%s does not decode to the file (%v)", brSuffix, err)
	}
	gz, err := os.ReadFile(name + gzipSuffix)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	got, err = io.ReadAll(zr)
	if err != nil || !bytes.Equal(got, src) {
		t.Errorf(".gz does not decode to the file (%v)", err)
	}
	if !current(name, brSuffix) || !current(name, gzipSuffix) {
		t.Errorf("fresh siblings not current")
	}
	for _, suffix := range []string{brSuffix, gzipSuffix} {
		sib, _ := os.Stat(name + suffix)
		file, _ := os.Stat(name)
		if !sib.ModTime().Equal(file.ModTime()) {
			t.Errorf("%s dated %v, its file %v: a sibling carries its source's time", suffix, sib.ModTime(), file.ModTime())
		}
	}
}
