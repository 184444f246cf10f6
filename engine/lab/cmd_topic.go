package lab

import (
	"fmt"
	"strings"

	"github.com/loglab/loglab/engine/cluster"
	"github.com/loglab/loglab/engine/log"
)

var topicCreateCommand = &command{
	name:  "topic create",
	usage: "topic create NAME [partitions=1] [rf=1] [CONFIG=VALUE...]",
	summary: "create a topic; rf is the replication factor, at most the broker count; CONFIG is any of " +
		strings.Join(log.SettingNames(), ", "),
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
		cfg := log.DefaultConfig()
		var set []string
		for _, kv := range a.rest() {
			if !log.IsSetting(kv[0]) {
				return "", fmt.Errorf("unknown option %s (topic configs: %s)", kv[0], strings.Join(log.SettingNames(), ", "))
			}
			if err := cfg.Set(kv[0], kv[1]); err != nil {
				return "", fmt.Errorf("INVALID_CONFIG: %w", err)
			}
			set = append(set, kv[0]+"="+kv[1])
		}
		if err := a.finish(); err != nil {
			return "", err
		}
		t, err := l.cluster.CreateTopic(name, partitions, rf, cfg)
		if err != nil {
			return "", err
		}
		out := fmt.Sprintf("created topic %s: partitions=%d rf=%d", t.Name, len(t.Partitions), t.ReplicationFactor)
		if len(set) > 0 {
			out += " " + strings.Join(set, " ")
		}
		return out, nil
	},
}
