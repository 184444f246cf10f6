package lab

import (
	"fmt"
	"strings"

	"github.com/loglab/loglab/engine/cluster"
	"github.com/loglab/loglab/engine/log"
	"github.com/loglab/loglab/engine/protocol"
)

var topicCreateCommand = &command{
	name:  "topic create",
	usage: "topic create NAME [partitions=1] [rf=1] [CONFIG=VALUE...]",
	summary: "create a topic; rf is the replication factor, at most the broker count; CONFIG is any of " +
		strings.Join(append(append([]string{}, cluster.TopicConfigNames...), log.SettingNames()...), ", "),
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
		if a.has("replication.factor") {
			rf = a.integer("replication.factor", 1, 1, cluster.MaxBrokers)
		}
		configs := a.rest()
		if err := a.finish(); err != nil {
			return "", err
		}
		var set []string
		for _, kv := range configs {
			set = append(set, kv[0]+"="+kv[1])
		}
		if err := l.cluster.CreateTopic(name, partitions, rf, configs); err != nil {
			return "", err
		}
		out := fmt.Sprintf("created topic %s: partitions=%d rf=%d", name, partitions, rf)
		if len(set) > 0 {
			out += " " + strings.Join(set, " ")
		}
		out += "\n" + describeTopic(l.cluster, name)
		for _, kv := range configs {
			if note := segmentBytesNote("segment.bytes", kv[1]); kv[0] == "segment.bytes" && note != "" {
				out += "\n" + note
			}
		}
		return out, nil
	},
}

var topicDescribeCommand = &command{
	name:    "topic describe",
	usage:   "topic describe [NAME]",
	summary: "print topics as kafka-topics --describe does: leader, replicas and ISR of each partition",
	run: func(l *Lab, a *args) (string, error) {
		if err := l.requireCluster(); err != nil {
			return "", err
		}
		if err := a.finish(); err != nil {
			return "", err
		}
		if len(a.positional) > 1 {
			return "", fmt.Errorf("expected at most one topic name")
		}
		var names []string
		for _, t := range l.cluster.Topics() {
			if len(a.positional) == 0 || a.positional[0] == t.Name {
				names = append(names, t.Name)
			}
		}
		if len(a.positional) == 1 && len(names) == 0 {
			return "", fmt.Errorf("%w: no topic %q", cluster.ErrUnknownTopicOrPartition, a.positional[0])
		}
		if len(names) == 0 {
			return "no topics", nil
		}
		var parts []string
		for _, n := range names {
			parts = append(parts, describeTopic(l.cluster, n))
		}
		return strings.Join(parts, "\n"), nil
	},
}

// describeTopic is kafka-topics --describe's layout.
func describeTopic(c *cluster.Cluster, name string) string {
	var t = c.Controller().Image().Topic(name)
	var b strings.Builder
	var cfgs []string
	for _, kv := range t.Configs {
		cfgs = append(cfgs, kv[0]+"="+kv[1])
	}
	rf := 0
	if len(t.Partitions) > 0 && t.Partitions[0] != nil {
		rf = len(t.Partitions[0].Replicas)
	}
	fmt.Fprintf(&b, "Topic: %s\tPartitionCount: %d\tReplicationFactor: %d\tConfigs: %s", t.Name, len(t.Partitions), rf, strings.Join(cfgs, ","))
	for i, p := range t.Partitions {
		if p == nil {
			continue
		}
		leader := fmt.Sprint(p.Leader)
		if p.Leader < 0 {
			leader = "none"
		}
		fmt.Fprintf(&b, "\n\tTopic: %s\tPartition: %d\tLeader: %s\tReplicas: %s\tIsr: %s\tLeaderEpoch: %d",
			t.Name, i, leader, protocol.JoinIDs(p.Replicas), protocol.JoinIDs(p.ISR), p.LeaderEpoch)
	}
	return b.String()
}
