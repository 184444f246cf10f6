package lab

import (
	"fmt"

	"github.com/loglab/loglab/engine/cluster"
)

var clusterCommand = &command{
	name:    "cluster",
	usage:   "cluster [brokers=3] [controllers=3] [seed=1]",
	summary: "start a new, empty cluster (replacing any current one)",
	run: func(l *Lab, a *args) (string, error) {
		cfg := cluster.Config{
			Brokers:     a.integer("brokers", 3, 1, cluster.MaxBrokers),
			Controllers: a.integer("controllers", 3, 1, cluster.MaxControllers),
			Seed:        a.uint64("seed", 1),
		}
		if err := noPositional(a); err != nil {
			return "", err
		}
		if err := a.finish(); err != nil {
			return "", err
		}
		c, err := cluster.New(cfg)
		if err != nil {
			return "", err
		}
		l.cluster = c
		return fmt.Sprintf("cluster started: brokers=%d controllers=%d seed=%d", cfg.Brokers, cfg.Controllers, cfg.Seed), nil
	},
}

var tickCommand = &command{
	name:    "tick",
	usage:   "tick DURATION",
	summary: "advance virtual time, e.g. tick 100ms or tick 2s (a bare number is milliseconds)",
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
		if err := l.cluster.Tick(d); err != nil {
			return "", err
		}
		return fmt.Sprintf("time is %v (+%v)", l.cluster.Elapsed(), d), nil
	},
}
