package lab

import (
	"fmt"
	"strings"
	"time"

	"github.com/loglab/loglab/engine/cluster"
	"github.com/loglab/loglab/engine/view"
)

var clusterCommand = &command{
	name:    "cluster",
	usage:   "cluster [brokers=3] [controllers=3] [seed=1] [log.retention.check.interval.ms=300000] [log.cleaner.backoff.ms=15000]",
	summary: "start a new, empty cluster (replacing any current one and its data)",
	run: func(l *Lab, a *args) (string, error) {
		def := cluster.DefaultConfig()
		cfg := cluster.Config{
			Brokers:                a.integer("brokers", def.Brokers, 1, cluster.MaxBrokers),
			Controllers:            a.integer("controllers", def.Controllers, 1, cluster.MaxControllers),
			Seed:                   a.uint64("seed", def.Seed),
			RetentionCheckInterval: a.millis("log.retention.check.interval.ms", def.RetentionCheckInterval),
			CleanerBackoff:         a.millis("log.cleaner.backoff.ms", def.CleanerBackoff),
		}
		if err := noPositional(a); err != nil {
			return "", err
		}
		if err := a.finish(); err != nil {
			return "", err
		}
		if err := cfg.Validate(); err != nil {
			return "", err
		}
		if l.cluster != nil {
			if err := l.cluster.Destroy(); err != nil {
				return "", fmt.Errorf("removing the previous cluster's data: %w", err)
			}
		}
		c, err := cluster.New(cfg, l.fs)
		if err != nil {
			return "", err
		}
		l.cluster = c
		l.inspector = view.Inspector{}
		return fmt.Sprintf("cluster started: brokers=%d controllers=%d seed=%d", cfg.Brokers, cfg.Controllers, cfg.Seed), nil
	},
}

var tickCommand = &command{
	name:    "tick",
	usage:   "tick DURATION",
	summary: "advance virtual time, e.g. tick 100ms or tick 5m (a bare number is milliseconds); retention and the cleaner run on their schedules",
	run: func(l *Lab, a *args) (string, error) {
		if err := l.requireCluster(); err != nil {
			return "", err
		}
		s, err := onePositional(a, "duration")
		if err != nil {
			return "", err
		}
		if err := a.finish(); err != nil {
			return "", err
		}
		d, err := parseDuration(s)
		if err != nil {
			return "", err
		}
		if d < 0 {
			return "", fmt.Errorf("cannot move the clock backwards by %v", d)
		}
		hk, err := l.cluster.Tick(d)
		var b strings.Builder
		fmt.Fprintf(&b, "time is %v (+%v)", l.cluster.Elapsed(), d)
		describeHousekeeping(&b, hk)
		if err != nil {
			return "", fmt.Errorf("%s\n%w", b.String(), err)
		}
		return b.String(), nil
	},
}

// describeHousekeeping prints what retention and the cleaner did.
func describeHousekeeping(b *strings.Builder, hk cluster.Housekeeping) {
	for _, d := range hk.Deletions {
		var files []string
		for _, s := range d.Segments {
			files = append(files, fmt.Sprintf("%020d.log (offsets %d-%d, %d bytes)", s.BaseOffset, s.BaseOffset, s.NextOffset-1, s.Size))
		}
		fmt.Fprintf(b, "\n  at %v %s deleted %s/%d %s; log start offset is now %d",
			time.Duration(d.AtMs)*time.Millisecond, d.Reason, d.Topic, d.Partition, strings.Join(files, ", "), d.NewStartOffset)
	}
	for _, c := range hk.Cleanings {
		fmt.Fprintf(b, "\n  at %v the cleaner compacted %s/%d (dirty ratio %.2f): removed %d superseded records and %d tombstones, %d -> %d bytes",
			time.Duration(c.AtMs)*time.Millisecond, c.Topic, c.Partition, c.DirtyRatio, c.Superseded, c.TombstonesRemoved, c.BytesBefore, c.BytesAfter)
	}
}
