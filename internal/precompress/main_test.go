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

func TestSiblingsDecodeToTheFileAndAreRewrittenWhenStale(t *testing.T) {
	name := filepath.Join(t.TempDir(), "loglab.wasm")
	src := bytes.Repeat([]byte("\x00asm module "), 1000)
	if err := os.WriteFile(name, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := precompress(name); err != nil {
		t.Fatal(err)
	}
	checkSiblings(t, name, src)

	// Current siblings are left alone (the minutes of brotli are skipped):
	// mark them old-but-current and see their times survive.
	past := time.Now().Add(-time.Hour)
	for _, p := range []string{name, name + ".br", name + ".gz"} {
		os.Chtimes(p, past, past)
	}
	if err := precompress(name); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(name + ".br"); !info.ModTime().Equal(past) {
		t.Errorf("current .br rewritten")
	}

	// A rebuilt file is newer than its siblings: they are written again.
	src = append(src, "rebuilt"...)
	if err := os.WriteFile(name, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := precompress(name); err != nil {
		t.Fatal(err)
	}
	checkSiblings(t, name, src)
}

func checkSiblings(t *testing.T, name string, src []byte) {
	t.Helper()
	br, err := os.ReadFile(name + ".br")
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(brotli.NewReader(bytes.NewReader(br)))
	if err != nil || !bytes.Equal(got, src) {
		t.Errorf(".br does not decode to the file (%v)", err)
	}
	gz, err := os.ReadFile(name + ".gz")
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
	if !current(name) {
		t.Errorf("fresh siblings not current")
	}
}
