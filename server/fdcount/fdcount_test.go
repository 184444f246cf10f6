package fdcount

import (
	"os"
	"runtime"
	"testing"
)

// Open counts what /proc/self/fd lists, less its own descriptor: opening
// files adds them one for one.
func TestOpenCountsTheProcesssFiles(t *testing.T) {
	before, ok := Open()
	if !ok {
		if runtime.GOOS == "linux" {
			t.Fatal("Open could not count on Linux")
		}
		t.Skip("no /proc/self/fd on " + runtime.GOOS)
	}
	var files []*os.File
	for range 5 {
		f, err := os.Open(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := Open()
	if want := len(entries) - 1; got != want || got != before+5 {
		t.Fatalf("Open() = %d, want %d (ReadDir's count less its own) and %d (5 more than before)", got, want, before+5)
	}
}

func BenchmarkOpen(b *testing.B) {
	for b.Loop() {
		Open()
	}
}
