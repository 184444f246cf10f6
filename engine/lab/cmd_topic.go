package lab

import (
	"fmt"

	"github.com/loglab/loglab/engine/cluster"
)

var topicCreateCommand = &command{
	name:    "topic create",
	usage:   "topic create NAME [partitions=1] [rf=1]",
	summary: "create a topic (rf is the replication factor, at most the broker count)",
	run: func(l *Lab, a *args) (string, error) {
		if err := l.requireCluster(); err != nil {
			return "", err
		}
		name, err := onePositional(a, "topic name")
		if err != nil {
			return "", err
		}
		partitions := a.integer("partitions", 1, 1, cluster.MaxPartitions)
		rf := a.integer("rf", 1, 1, cluster.MaxBrokers)
		if err := a.finish(); err != nil {
			return "", err
		}
		t, err := l.cluster.CreateTopic(name, partitions, rf)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("created topic %s: partitions=%d rf=%d", t.Name, len(t.Partitions), t.ReplicationFactor), nil
	},
}
