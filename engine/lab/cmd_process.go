package lab

import (
	"fmt"
	"strings"
	"time"

	"github.com/loglab/loglab/engine/cluster"
)

var processCommand = &command{
	name:    "process",
	usage:   "process CONSUMER [time=0s]",
	summary: "the application processes the records its last poll returned, taking time= of virtual time without polling (heartbeats go on); a crash before this leaves them unprocessed",
	run: func(l *Lab, a *args) (string, error) {
		if err := l.requireCluster(); err != nil {
			return "", err
		}
		name, err := onePositional(a, "consumer name")
		if err != nil {
			return "", err
		}
		d := a.duration("time", 0)
		if err := a.finish(); err != nil {
			return "", err
		}
		co := l.cluster.Consumer(name)
		if co == nil {
			return "", fmt.Errorf("no consumer %q", name)
		}
		if err := l.costCheck(fmt.Sprintf("time=%v", d), d, 0, func(fit time.Duration) string {
			return "process with time= at most " + roundDown(fit)
		}); err != nil {
			return "", err
		}
		if len(l.cluster.InHand(name)) == 0 {
			return "", fmt.Errorf("%s holds no records: its last poll returned none, or they were processed", name)
		}
		done, err := l.cluster.Process(co, d)
		if err != nil {
			return "", err
		}
		var b strings.Builder
		writeProcessed(&b, name, d, done)
		return strings.TrimSuffix(b.String(), "\n"), nil
	},
}

// writeProcessed says what an application processed, partition by
// partition as offset ranges, then each record it processed again.
func writeProcessed(b *strings.Builder, name string, d time.Duration, done []cluster.Processed) {
	fmt.Fprintf(b, "%s processed %d record%s in %v:", name, len(done), plural(len(done)), d)
	for i := 0; i < len(done); {
		j := i + 1
		for j < len(done) && done[j].TP == done[i].TP && done[j].Offset == done[j-1].Offset+1 {
			j++
		}
		if j-i == 1 {
			fmt.Fprintf(b, " %s/%d offset %d", done[i].TP.Topic, done[i].TP.Partition, done[i].Offset)
		} else {
			fmt.Fprintf(b, " %s/%d offsets %d-%d", done[i].TP.Topic, done[i].TP.Partition, done[i].Offset, done[j-1].Offset)
		}
		i = j
	}
	b.WriteByte('\n')
	writeReprocessed(b, done)
}

// writeReprocessed lists the records processed again: the duplicates a
// rebalance or a crash before the commit caused.
func writeReprocessed(b *strings.Builder, done []cluster.Processed) {
	for _, p := range done {
		if p.Times > 1 {
			b.WriteString(p.String())
			b.WriteByte('\n')
		}
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
