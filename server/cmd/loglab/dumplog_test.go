package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/record"
)

// writeSegment writes two batches as a segment 00000000000000000000.log, and
// its offset index, into a temporary directory.
func writeSegment(t *testing.T) (logPath, indexPath string, sizes []int) {
	t.Helper()
	var seg, index []byte
	for _, b := range []record.Batch{
		{
			BaseOffset: 0, LastOffsetDelta: 1, BaseTimestamp: 1700000000000, MaxTimestamp: 1700000000001,
			ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1,
			Records: []record.Record{
				{OffsetDelta: 0, Key: []byte("k"), Value: []byte("v")},
				{OffsetDelta: 1, TimestampDelta: 1, Value: []byte("no key")},
			},
		},
		record.NewControlBatch(2, 1700000000002, 4, 0, 0, record.EndTxnMarker{Type: record.Abort, CoordinatorEpoch: 1}),
	} {
		enc, err := b.AppendEncoded(nil)
		if err != nil {
			t.Fatal(err)
		}
		index = binary.BigEndian.AppendUint32(index, uint32(b.LastOffset()))
		index = binary.BigEndian.AppendUint32(index, uint32(len(seg)))
		seg = append(seg, enc...)
		sizes = append(sizes, len(enc))
	}
	dir := t.TempDir()
	logPath = filepath.Join(dir, "00000000000000000000.log")
	indexPath = filepath.Join(dir, "00000000000000000000.index")
	if err := os.WriteFile(logPath, seg, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(indexPath, index, 0o644); err != nil {
		t.Fatal(err)
	}
	return logPath, indexPath, sizes
}

func TestDumpLog(t *testing.T) {
	logPath, indexPath, sizes := writeSegment(t)

	code, stdout, stderr := runCLI(t, "", "dump-log", logPath)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	want := fmt.Sprintf("Dumping %s\nLog starting offset: 0\nbaseOffset: 0 lastOffset: 1 count: 2 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 0 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: 1700000000001 size: %d magic: 2 compresscodec: none crc: ", logPath, sizes[0])
	if !strings.HasPrefix(stdout, want) || strings.Count(stdout, "\n") != 4 || strings.Contains(stdout, "| offset") {
		t.Fatalf("without -print-data-log, batch lines only; got:\n%s", stdout)
	}

	code, stdout, stderr = runCLI(t, "", "dump-log", "-print-data-log", logPath, indexPath)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, line := range []string{
		"| offset: 0 CreateTime: 1700000000000 keySize: 1 valueSize: 1 sequence: -1 headerKeys: [] key: k payload: v\n",
		"| offset: 1 CreateTime: 1700000000001 keySize: -1 valueSize: 6 sequence: -1 headerKeys: [] payload: no key\n",
		fmt.Sprintf("baseOffset: 2 lastOffset: 2 count: 1 baseSequence: -1 lastSequence: -1 producerId: 4 producerEpoch: 0 partitionLeaderEpoch: 0 isTransactional: true isControl: true deleteHorizonMs: OptionalLong.empty position: %d CreateTime: 1700000000002 size: %d magic: 2 compresscodec: none crc: ", sizes[0], sizes[1]),
		"| offset: 2 CreateTime: 1700000000002 keySize: 4 valueSize: 6 sequence: -1 headerKeys: [] endTxnMarker: ABORT coordinatorEpoch: 1\n",
		fmt.Sprintf("Dumping %s\noffset: 1 position: 0\noffset: 2 position: %d\n", indexPath, sizes[0]),
	} {
		if !strings.Contains(stdout, line) {
			t.Errorf("missing %q in:\n%s", line, stdout)
		}
	}

	// Kafka's --files spelling, and a truncated tail.
	data, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(logPath, data[:len(data)-4], 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ = runCLI(t, "", "dump-log", "--files", logPath+","+indexPath)
	if code != 0 || !strings.Contains(stdout, fmt.Sprintf("Found %d invalid bytes at the end of 00000000000000000000.log\nDumping %s\n", sizes[1]-4, indexPath)) {
		t.Errorf("exit %d, truncated segment:\n%s", code, stdout)
	}
}

// The index is checked against the segment next to it, and Kafka's report
// goes to stderr.
func TestDumpLogIndexMismatch(t *testing.T) {
	_, indexPath, _ := writeSegment(t)
	index, err := os.ReadFile(indexPath)
	if err != nil {
		t.Fatal(err)
	}
	binary.BigEndian.PutUint32(index, 0) // the first batch ends at 1, not 0
	binary.BigEndian.PutUint32(index[8:], 7)
	if err := os.WriteFile(indexPath, index, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "", "dump-log", "-verify-index-only", indexPath)
	if code != 0 || stdout != "Dumping "+indexPath+"\n" {
		t.Errorf("exit %d, stdout:\n%s", code, stdout)
	}
	if want := "Mismatches in :" + indexPath + "\n  Index offset: 7, log offset: 2\n  Index offset: 0, log offset: 1\n"; stderr != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr, want)
	}
}

func TestDumpLogErrors(t *testing.T) {
	logPath, _, _ := writeSegment(t)
	missing := filepath.Join(t.TempDir(), "00000000000000000000.log")
	code, stdout, stderr := runCLI(t, "", "dump-log", missing, logPath)
	if code != 1 || !strings.Contains(stderr, "no such file") {
		t.Errorf("a missing file: exit %d, stderr %q", code, stderr)
	}
	if !strings.Contains(stdout, "Dumping "+logPath+"\n") {
		t.Errorf("the other files are still dumped:\n%s", stdout)
	}
	if code, _, stderr := runCLI(t, "", "dump-log", filepath.Dir(logPath)); code != 1 || !strings.Contains(stderr, "is a directory") {
		t.Errorf("a directory: exit %d, stderr %q", code, stderr)
	}
	for _, args := range [][]string{{"dump-log"}, {"dump-log", "-nope", logPath}} {
		if code, _, stderr := runCLI(t, "", args...); code != 2 || !strings.Contains(stderr, "usage: loglab") {
			t.Errorf("loglab %v: exit %d, stderr %q", args, code, stderr)
		}
	}
	if code, stdout, stderr := runCLI(t, "", "dump-log", "-h"); code != 0 || stdout != "" || !strings.Contains(stderr, "-print-data-log") {
		t.Errorf("-h: exit %d, stderr %q", code, stderr)
	}
}
