package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loglab/loglab/server"
)

func runCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut strings.Builder
	code = run(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestUsageErrorsExitTwo(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"frobnicate"},
		{"serve", "-nope"},
		{"script"},
		{"script", "a", "b"},
		{"script", "-x", "f"},
		{"version", "-v"},
		{"version", "extra"},
	} {
		code, _, stderr := runCLI(t, "", args...)
		if code != 2 {
			t.Errorf("loglab %v exited %d, want 2", args, code)
		}
		if !strings.Contains(stderr, "usage: loglab") {
			t.Errorf("loglab %v did not print usage; stderr:\n%s", args, stderr)
		}
	}
}

func TestScriptFromStdin(t *testing.T) {
	code, stdout, stderr := runCLI(t, "cluster seed=3\ntopic create t\nproduce t key=k value=v\nshow log t/0\n", "script", "-")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	if !strings.Contains(stdout, "> produce t key=k value=v\nproduced to t/0 at offset 0 (acks=all)\n") ||
		!strings.Contains(stdout, "key: k payload: v") {
		t.Fatalf("unexpected transcript:\n%s", stdout)
	}
}

func TestScriptFromFileReportsFailures(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.lab")
	if err := os.WriteFile(path, []byte("cluster\nproduce missing value=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "", "script", path)
	// A Kafka outcome fails the script (exit 1) but is not a misuse: no usage.
	if code != 1 || !strings.Contains(stdout, "error: produce: UNKNOWN_TOPIC_OR_PARTITION") || strings.Contains(stdout, "usage: produce") ||
		!strings.Contains(stderr, "1 command(s) failed") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if code, _, stderr := runCLI(t, "", "script", filepath.Join(t.TempDir(), "absent.lab")); code != 1 || !strings.Contains(stderr, "no such file") {
		t.Fatalf("a missing file: exit %d, stderr %q", code, stderr)
	}
}

func TestVersionAndHelp(t *testing.T) {
	if code, stdout, _ := runCLI(t, "", "version"); code != 0 || !strings.HasPrefix(stdout, "loglab ") {
		t.Fatalf("version: exit %d, %q", code, stdout)
	}
	if code, stdout, _ := runCLI(t, "", "help"); code != 0 || !strings.Contains(stdout, "serve") {
		t.Fatalf("help: exit %d, %q", code, stdout)
	}
}

func TestServeRefusesAFolderWithoutTheStaticFiles(t *testing.T) {
	code, _, stderr := runCLI(t, "", "serve", "-addr", "127.0.0.1:0", "-static", t.TempDir())
	if code != 1 || !strings.Contains(stderr, "no app.js") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

// -data-dir writes real segment files that Kafka's tools and franz-go's
// decoder can read; the transcript is the same as without it.
func TestScriptWritesSegmentFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	script := "cluster seed=1\ntopic create orders partitions=2 rf=2 segment.bytes=200\nproducer create p batch.size=0 linger.ms=0\nproduce orders key=k{i} value=v{i} count=20 producer=p\nshow segments orders/1\n"
	code, withFiles, stderr := runCLI(t, script, "script", "-data-dir", dir, "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, inMemory, _ := runCLI(t, script, "script", "-")
	if withFiles != inMemory {
		t.Fatalf("transcripts differ with and without -data-dir:\n%s\n---\n%s", withFiles, inMemory)
	}
	// Each partition has two replicas, each on its broker's directory.
	replicaDirs, _ := filepath.Glob(filepath.Join(dir, "broker-*", "orders-*"))
	if len(replicaDirs) != 4 {
		t.Fatalf("replica directories %v, want 2 partitions x 2 replicas", replicaDirs)
	}
	for _, d := range replicaDirs {
		logs, _ := filepath.Glob(filepath.Join(d, "*.log"))
		if len(logs) < 2 {
			t.Fatalf("%s has %d segment files, want several with segment.bytes=200", d, len(logs))
		}
		for _, want := range []string{"00000000000000000000.log", "00000000000000000000.index", "00000000000000000000.timeindex", "leader-epoch-checkpoint"} {
			if _, err := os.Stat(filepath.Join(d, want)); err != nil {
				t.Errorf("%s: %v", d, err)
			}
		}
	}
	if code, _, stderr := runCLI(t, script, "script", "-data-dir", dir, "-"); code != 1 || !strings.Contains(stderr, "not empty") {
		t.Fatalf("reusing a non-empty data dir: exit %d, %s", code, stderr)
	}
}

// A second server on a data directory another one holds refuses at once,
// naming the holder, before it opens or writes anything there.
func TestServeRefusesADataDirectoryAnotherServerHolds(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	release, err := server.LockDataDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	static := t.TempDir()
	if err := os.WriteFile(filepath.Join(static, "app.js"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "", "serve", "-addr", "127.0.0.1:0", "-static", static, "-data-dir", dir)
	if code != 1 || !strings.Contains(stderr, "is in use by the loglab server with pid") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the refused server wrote into the held directory: %v", entries)
	}
}
