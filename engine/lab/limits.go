package lab

import (
	"fmt"

	"github.com/loglab/loglab/engine/cluster"
)

// The lab's limits: what one command may cost and what one cluster may
// hold, so that one learner's command cannot freeze a shared server (or a
// browser tab) nor fill its memory. Each is refused up front with an error
// naming the limit and its value; none of them is Kafka's. They are
// exported so that the server and the README can state them.
const (
	// MaxEventsPerCommand bounds one command's simulation, in events
	// (weighted: with `check invariants always=true` an event also counts
	// the replicas the checker walks after it). About 2 s of one core
	// (an idle 3-broker cluster runs about a million events a wall second
	// and 55 a virtual second, so `tick 10h` fits); counted, not timed,
	// so that a command is refused the same way on every machine.
	MaxEventsPerCommand = 2_000_000

	// MaxStepCount bounds `step N`: each step prints a line, and 10,000
	// lines are already more than anyone reads.
	MaxStepCount = 10_000

	// MaxRecordsPerProduce bounds one produce command's records: enough
	// to fill segments and show retention and compaction at work, small
	// enough that its delivery reports and events stay a few seconds.
	MaxRecordsPerProduce = 10_000

	// MaxBytesPerProduce bounds the key and value bytes one produce
	// command sends (count x (key + value)): 1 MiB, the Java producer's
	// default max.request.size. Its records are held several times over
	// while they travel (the producer's batches, requests in flight, every
	// replica's log).
	MaxBytesPerProduce = 1 << 20

	// MaxBytesPerCluster bounds the bytes a cluster holds: the sizes of
	// every partition log on every broker (so replicas count: rf=3 holds
	// each record three times), checked before a produce with a
	// conservative 80 bytes of framing per record. A cluster's process
	// grows by about five bytes per byte its logs hold (indexes, the page
	// cache of its in-memory disks, the checker's record of acknowledged
	// data, and Go's collector letting the heap reach twice the live data):
	// measured with `loglab script`, logs of 59 MB took 307 MB of RSS, a
	// cluster filled to this limit 47 MB (3.9 KB records) or 59 MB
	// (20,000 records of 90 bytes). 8 MiB keeps it well under 100 MB.
	MaxBytesPerCluster = 8 << 20

	// MaxCommandLineBytes bounds one command line: room for a value of
	// tens of kilobytes typed inline, without a script or a viewer sending
	// megabytes to the engine in one line.
	MaxCommandLineBytes = 64 << 10

	// MaxReplayEvents and MaxReplayBytes bound what a lab in memory keeps
	// to undo a command by replay (the events its commands ran since
	// `cluster`, and their lines): an undo costs a replay, about 5 s at
	// most. A longer session stops keeping them and, like a lab on real
	// storage, refuses on a conservative estimate instead.
	MaxReplayEvents = 5 * MaxEventsPerCommand
	MaxReplayBytes  = 4 << 20
)

// limits are the values a lab enforces: the constants above, which tests
// lower to reach a limit cheaply.
type limits struct {
	eventsPerCommand  int64
	recordsPerProduce int
	bytesPerProduce   int64
	bytesPerCluster   int64
	commandLineBytes  int
	replayEvents      int64
	replayBytes       int64
}

func defaultLimits() limits {
	return limits{
		eventsPerCommand:  MaxEventsPerCommand,
		recordsPerProduce: MaxRecordsPerProduce,
		bytesPerProduce:   MaxBytesPerProduce,
		bytesPerCluster:   MaxBytesPerCluster,
		commandLineBytes:  MaxCommandLineBytes,
		replayEvents:      MaxReplayEvents,
		replayBytes:       MaxReplayBytes,
	}
}

// thousands prints a limit as it is read: 2,000,000.
func thousands(n int64) string { return cluster.Thousands(n) }

// errLineTooLong refuses a command line past MaxCommandLineBytes.
func errLineTooLong(n, limit int) error {
	return fmt.Errorf("the command line is %s bytes, past the limit of %s bytes per command line", thousands(int64(n)), thousands(int64(limit)))
}
