package log

import (
	"bufio"
	"bytes"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/loglab/loglab/engine/storage"
)

// EpochEntry says that leader epoch Epoch began writing at StartOffset.
type EpochEntry struct {
	Epoch       int32
	StartOffset int64
}

// EpochCache is a partition's leader-epoch history, kept in Kafka's
// leader-epoch-checkpoint file. A follower that comes back asks the leader
// where its last epoch ended (OffsetForLeaderEpoch, KIP-101/KIP-279) and
// truncates exactly the divergent suffix, instead of trusting its high
// watermark, which is what used to lose or fork data.
type EpochCache struct {
	fs      storage.FS
	file    string
	entries []EpochEntry
}

// UndefinedEpoch and UndefinedOffset are Kafka's answers for an epoch
// older than the history (UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET).
const (
	UndefinedEpoch  int32 = -1
	UndefinedOffset int64 = -1
)

func openEpochCache(fs storage.FS, dir string) (*EpochCache, error) {
	c := &EpochCache{fs: fs, file: path.Join(dir, EpochCheckpointFile)}
	f, err := fs.Open(c.file)
	if err != nil {
		return c, nil // no checkpoint yet: an empty history
	}
	defer f.Close()
	raw := make([]byte, f.Size())
	if err := storage.ReadFull(f, raw, 0); err != nil {
		return nil, err
	}
	entries, err := ParseEpochCheckpoint(raw)
	if err != nil {
		// Kafka's CheckpointFile throws a KafkaStorageException here, and
		// the log directory goes offline: the partition is not opened.
		return nil, fmt.Errorf("KafkaStorageException: error while reading checkpoint file %s: %w", c.file, err)
	}
	c.entries = entries
	return c, nil
}

// ParseEpochCheckpoint reads Kafka's checkpoint text: a version line (0), a
// count line, then "epoch startOffset" per line.
func ParseEpochCheckpoint(raw []byte) ([]EpochEntry, error) {
	sc := bufio.NewScanner(bytes.NewReader(raw))
	line := func() (string, bool) {
		if !sc.Scan() {
			return "", false
		}
		return strings.TrimSpace(sc.Text()), true
	}
	if v, ok := line(); !ok || v != "0" {
		return nil, fmt.Errorf("checkpoint version %q, want 0", v)
	}
	countText, ok := line()
	count, err := strconv.Atoi(countText)
	if !ok || err != nil || count < 0 {
		return nil, fmt.Errorf("checkpoint entry count %q is not a number", countText)
	}
	var entries []EpochEntry
	for i := 0; i < count; i++ {
		text, ok := line()
		fields := strings.Fields(text)
		if !ok || len(fields) != 2 {
			return nil, fmt.Errorf("checkpoint entry %d: %q is not \"epoch offset\"", i, text)
		}
		epoch, err1 := strconv.ParseInt(fields[0], 10, 32)
		offset, err2 := strconv.ParseInt(fields[1], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("checkpoint entry %d: %q is not \"epoch offset\"", i, text)
		}
		entries = append(entries, EpochEntry{Epoch: int32(epoch), StartOffset: offset})
	}
	return entries, nil
}

// FormatEpochCheckpoint writes entries in Kafka's checkpoint text format.
func FormatEpochCheckpoint(entries []EpochEntry) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "0\n%d\n", len(entries))
	for _, e := range entries {
		fmt.Fprintf(&b, "%d %d\n", e.Epoch, e.StartOffset)
	}
	return b.Bytes()
}

// Entries is the history, oldest first.
func (c *EpochCache) Entries() []EpochEntry { return append([]EpochEntry(nil), c.entries...) }

// Latest is the newest epoch, or UndefinedEpoch.
func (c *EpochCache) Latest() int32 {
	if len(c.entries) == 0 {
		return UndefinedEpoch
	}
	return c.entries[len(c.entries)-1].Epoch
}

// Assign records that epoch starts at startOffset. Entries that the new one
// contradicts (a later or equal epoch, or a later start) are dropped first.
func (c *EpochCache) Assign(epoch int32, startOffset int64) error {
	if n := len(c.entries); n > 0 && c.entries[n-1].Epoch == epoch && c.entries[n-1].StartOffset <= startOffset {
		return nil
	}
	kept := c.entries[:0]
	for _, e := range c.entries {
		if e.Epoch < epoch && e.StartOffset < startOffset {
			kept = append(kept, e)
		}
	}
	c.entries = append(kept, EpochEntry{Epoch: epoch, StartOffset: startOffset})
	return c.flush()
}

// EndOffsetFor answers OffsetForLeaderEpoch as Kafka's
// LeaderEpochFileCache.endOffsetFor does: the largest epoch at or below the
// requested one and the offset where it ended (the next epoch's start, or
// logEndOffset for the latest epoch). An epoch older than the whole history
// (retention dropped the entries before it) answers with the requested
// epoch and the first entry's start, so a follower cuts there and fetches
// what the leader still has; an undefined or a newer epoch than any known
// has no answer (UndefinedEpoch, UndefinedOffset).
func (c *EpochCache) EndOffsetFor(requested int32, logEndOffset int64) (int32, int64) {
	n := len(c.entries)
	switch {
	case requested == UndefinedEpoch || n == 0 || requested > c.entries[n-1].Epoch:
		return UndefinedEpoch, UndefinedOffset
	case requested == c.entries[n-1].Epoch:
		return requested, logEndOffset
	case requested < c.entries[0].Epoch:
		return requested, c.entries[0].StartOffset
	}
	for i := n - 2; i >= 0; i-- {
		if c.entries[i].Epoch <= requested {
			return c.entries[i].Epoch, c.entries[i+1].StartOffset
		}
	}
	return UndefinedEpoch, UndefinedOffset
}

// truncateFromEnd forgets epochs that started at or after endOffset, after
// the log itself was truncated there.
func (c *EpochCache) truncateFromEnd(endOffset int64) error {
	n := len(c.entries)
	for n > 0 && c.entries[n-1].StartOffset >= endOffset {
		n--
	}
	if n == len(c.entries) {
		return nil
	}
	c.entries = c.entries[:n]
	return c.flush()
}

// truncateFromStart follows the log start offset: epochs entirely below it
// are dropped, and the one it falls in now starts there.
func (c *EpochCache) truncateFromStart(startOffset int64) error {
	i := 0
	for i+1 < len(c.entries) && c.entries[i+1].StartOffset <= startOffset {
		i++
	}
	if len(c.entries) == 0 || (i == 0 && c.entries[0].StartOffset >= startOffset) {
		return nil
	}
	c.entries = c.entries[i:]
	c.entries[0].StartOffset = startOffset
	return c.flush()
}

// flush rewrites the checkpoint through a temporary file and a rename, as
// Kafka does, so a crash leaves the old or the new file, never half of one.
func (c *EpochCache) flush() error {
	tmp := c.file + ".tmp"
	f, err := c.fs.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := f.Write(FormatEpochCheckpoint(c.entries)); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	f.Close()
	return c.fs.Rename(tmp, c.file)
}
