//go:build linux

package server

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// mountSmallDisk mounts a tmpfs of size bytes at a new directory and
// returns it; the test is skipped where mounting is not allowed (not
// root, or no mount namespace rights): the storage adapter's ENOSPC
// tests (storagealarm_test.go, commandlog_diskfull_test.go) run
// everywhere.
func mountSmallDisk(t *testing.T, size int) string {
	t.Helper()
	dir := t.TempDir()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d", size)); err != nil {
		t.Skipf("mounting a small tmpfs: %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmounting %s: %v", dir, err)
		}
	})
	return dir
}

// A real disk fills under the workshop server (issue 26's third
// reproduction, on a disk instead of the storage adapter): the producer is
// told KAFKA_STORAGE_ERROR, the server keeps answering, commands.log says
// what it could not write; once space is freed, a server started again on
// the directory holds every acknowledged record.
func TestARealFullDiskIsAnAnswerAndLosesNothingAcknowledged(t *testing.T) {
	if _, err := exec.LookPath("mount"); err != nil && os.Geteuid() != 0 {
		t.Skip("no mount here")
	}
	disk := mountSmallDisk(t, 24<<20)
	data := disk + "/data"
	var logs bytes.Buffer
	s, err := New(Options{StaticDir: t.TempDir(), DataDir: data, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	// The room left: a filler file takes all but about 2 MB, freed later.
	var st syscall.Statfs_t
	if err := syscall.Statfs(disk, &st); err != nil {
		t.Fatal(err)
	}
	free := int64(st.Bavail) * st.Bsize
	filler := disk + "/filler"
	if err := os.WriteFile(filler, make([]byte, free-2<<20), 0o644); err != nil {
		s.Close()
		t.Fatal(err)
	}

	value := strings.Repeat("v", 10_000)
	var acked []int
	var refusal string
	for i := 0; i < 200 && refusal == ""; i++ {
		e := s.live.run(fmt.Sprintf("produce orders partition=0 key=k value=%d-%s", i, value))
		if e.OK && strings.Contains(e.Output, "(acks=all") {
			acked = append(acked, i)
			continue
		}
		refusal = e.Output
	}
	if refusal == "" {
		s.Close()
		t.Fatalf("200 records of 10 KB on 3 replicas filled nothing: the disk has more room than the test thinks")
	}
	// Every replica shares the disk: each leader in turn answers
	// KAFKA_STORAGE_ERROR and goes offline, the producer retries (it is
	// retriable) until no replica is left and delivery.timeout.ms ends it.
	if !strings.Contains(refusal, "produce to orders/0 failed with KAFKA_STORAGE_ERROR") {
		t.Errorf("the producer on a full disk was not told KAFKA_STORAGE_ERROR:\n%.3000s", refusal)
	}
	if e := s.live.run("topic describe orders"); !e.OK {
		t.Errorf("the server stopped answering on a full disk: %s", e.Output)
	}
	if err := s.Close(); err != nil {
		t.Logf("closing on a full disk: %v", err) // a flush may fail for space: what matters is what was acknowledged
	}
	if !strings.Contains(logs.String(), "no space left on device") {
		t.Errorf("the server's log does not name the full disk:\n%.2000s", logs.String())
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	again, err := New(Options{StaticDir: t.TempDir(), DataDir: data, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatalf("the server did not start again once space was freed: %v", err)
	}
	defer again.Close()
	e := again.live.run("show log orders/0")
	if !e.OK {
		t.Fatalf("show log orders/0 after the restart: %s", e.Output)
	}
	for _, i := range acked {
		if !strings.Contains(e.Output, fmt.Sprintf("payload: %d-v", i)) {
			t.Fatalf("record %d was acknowledged before the disk filled and is gone after the restart (%d acknowledged)", i, len(acked))
		}
	}
	t.Logf("%d records acknowledged before the disk filled; the refusal: %.300s", len(acked), refusal)
}
