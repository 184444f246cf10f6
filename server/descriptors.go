package server

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/loglab/loglab/engine/cluster"
	"github.com/loglab/loglab/server/fdcount"
)

// The descriptor budget. A cluster on a data directory keeps its files
// open as Kafka does (every segment's .log, .index and .timeindex), so
// the server's descriptors grow with what its clusters hold, and the
// process's limit (RLIMIT_NOFILE) is the one resource whose exhaustion
// takes every cluster down at once: accept fails, and the controller
// quorum cannot write its quorum-state. So the server refuses a command
// that would open many files, and a new participant cluster, while the
// process's open descriptors plus what that would open pass a budget well
// below the limit. The rest of the limit is left for what is not refused
// (page connections, segments that roll as records arrive, commands
// already running).
//
// Measured on a data directory (docs/workshop.md): a partition replica
// keeps 3 descriptors per segment; a bare `cluster` (3 controllers) 10;
// the starter script (3 controllers, a topic of 3 x rf 3) 37.
const (
	// descriptorBudgetPercent is the share of RLIMIT_NOFILE the budget
	// lets the clusters reach.
	descriptorBudgetPercent = 70
	// descriptorsPerReplica is what one replica's first segment opens.
	descriptorsPerReplica = 3
	// descriptorsPerCluster is what a new cluster opens before its first
	// topic: its controllers' metadata logs (4 each, at most 5
	// controllers), and room for the starter script's topic.
	descriptorsPerCluster = 4*cluster.MaxControllers + 3*3*descriptorsPerReplica
	// descriptorsPerProduce is a produce's estimate before its rolls: a
	// produce smaller than a segment opens files only when it rolls one,
	// so it is refused only once the process has reached the budget; a
	// larger one adds the segments it may roll (descriptorsAllow).
	descriptorsPerProduce = 0
)

// errDescriptorBudget is a command or cluster the descriptor budget
// refuses.
var errDescriptorBudget = errors.New("DESCRIPTOR_BUDGET_REACHED")

// descriptorBudget decides whether the process may open more files.
type descriptorBudget struct {
	limit  uint64 // the process's RLIMIT_NOFILE (soft); 0: unknown, no check
	budget int    // descriptorBudgetPercent of limit
	// open counts the process's open descriptors; ok false when it
	// cannot (not Linux): then nothing is refused. A test fakes it.
	open func() (n int, ok bool)
	// reuse is how long a reading below the budget answers commands that
	// open nothing up front (produce): counting takes the kernel a walk
	// of the descriptor table, about 5 ms at 14,000 descriptors, and a
	// produce asked on every command, taking the instructor's produce
	// from 3 ms to 15 in the hostile-room check. A second of segment
	// rolls fits in the 30% of the limit the budget leaves. 0: read
	// every time.
	reuse time.Duration
	now   func() time.Time

	mu     sync.Mutex
	last   int       // the last reading
	lastAt time.Time // when it was taken; zero: none yet
}

// newDescriptorBudget is the budget for a process whose soft
// RLIMIT_NOFILE is limit (0: unknown, no budget).
func newDescriptorBudget(limit uint64) *descriptorBudget {
	return &descriptorBudget{limit: limit, budget: int(limit * descriptorBudgetPercent / 100), open: fdcount.Open,
		reuse: time.Second, now: time.Now}
}

// allow reports, as an error naming the budget and what to do, whether
// what, needing about need descriptors, fits. A nil budget allows all.
func (b *descriptorBudget) allow(what string, need int) error {
	if b == nil || b.limit == 0 || b.open == nil {
		return nil
	}
	n, ok := b.reading(need)
	if !ok || n+need <= b.budget {
		return nil
	}
	return fmt.Errorf("%w: the server has %s files and connections open; %s would need about %s more, past its budget of %s "+
		"(%d%% of the process's limit of %s open files): nothing ran. Ask the instructor: removing idle participant clusters frees theirs, "+
		"and a server started after `ulimit -n` is raised gets a larger budget",
		errDescriptorBudget, cluster.Thousands(int64(n)), what, cluster.Thousands(int64(need)), cluster.Thousands(int64(b.budget)),
		descriptorBudgetPercent, cluster.Thousands(int64(b.limit)))
}

// reading is the open descriptors now, or a recent reading below the
// budget for a command that needs none up front.
func (b *descriptorBudget) reading(need int) (int, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var now time.Time
	if b.now != nil {
		now = b.now()
	}
	if need == 0 && b.reuse > 0 && !b.lastAt.IsZero() && now.Sub(b.lastAt) < b.reuse && b.last < b.budget {
		return b.last, true
	}
	n, ok := b.open()
	if ok {
		b.last, b.lastAt = n, now
	}
	return n, ok
}

// descriptorsFor estimates the descriptors a lab command opens (0 for
// one that opens none), and whether the budget is asked at all: a
// `cluster` (its controllers' logs), a `topic create` (a segment per
// replica), a produce (segments that roll). Options are read as the lab
// reads them (partitions=, rf= or replication.factor=, defaults 1); a
// line the lab will refuse is estimated all the same, harmlessly.
func descriptorsFor(line string) (need int, checked bool) {
	words := strings.Fields(line)
	switch {
	case len(words) == 0:
		return 0, false
	case words[0] == "cluster":
		return descriptorsPerCluster, true
	case words[0] == "produce":
		return descriptorsPerProduce, true
	case len(words) >= 2 && words[0] == "topic" && words[1] == "create":
		partitions, rf := 1, 1
		for _, w := range words[2:] {
			k, v, ok := strings.Cut(w, "=")
			n, err := strconv.Atoi(v)
			if !ok || err != nil || n < 1 {
				continue
			}
			switch k {
			case "partitions":
				partitions = min(n, cluster.MaxPartitions)
			case "rf", "replication.factor":
				rf = min(n, cluster.MaxBrokers)
			}
		}
		return partitions * rf * descriptorsPerReplica, true
	}
	return 0, false
}

// descriptorBudgetFor is the budget of a server with opts: none in
// memory; else from opts.DescriptorLimit, or the limit read now.
func descriptorBudgetFor(opts Options) *descriptorBudget {
	if opts.DataDir == "" {
		return nil
	}
	limit := opts.DescriptorLimit
	if limit == 0 {
		limit, _, _ = RaiseDescriptorLimit()
	}
	return newDescriptorBudget(limit)
}

// descriptorsAllow checks a command against the server's descriptor
// budget, with s.mu held: nil when it opens no files, the session is in
// memory, or it fits.
func (s *liveSession) descriptorsAllow(line string) error {
	need, checked := descriptorsFor(line)
	if !checked || s.dataDir == "" {
		return nil
	}
	words := strings.Fields(line)
	what := "`" + words[0] + "`"
	switch words[0] {
	case "topic":
		what = fmt.Sprintf("`topic create` (%s replicas of %d descriptors each)", cluster.Thousands(int64(need/descriptorsPerReplica)), descriptorsPerReplica)
	case "produce":
		// The lab knows the topic's segment.bytes and replicas: a produce
		// that may roll segments needs their files.
		if rolls := s.lab.SegmentsAProduceMayRoll(line); rolls > 0 {
			need += rolls * descriptorsPerReplica
			what = fmt.Sprintf("this produce (it may roll about %s segments across the topic's replicas, %d descriptors each: see the topic's segment.bytes)", cluster.Thousands(int64(rolls)), descriptorsPerReplica)
		}
	}
	return s.descriptors.allow(what, need)
}

// DescriptorBudget is the budget a process with soft limit limit gets,
// for serve's start-up line.
func DescriptorBudget(limit uint64) int { return newDescriptorBudget(limit).budget }
