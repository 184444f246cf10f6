package lab

import (
	"fmt"
	"strings"

	"github.com/loglab/loglab/engine/cluster"
	"github.com/loglab/loglab/engine/group/coordinator"
	"github.com/loglab/loglab/engine/group/describe"
	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
)

var showGroupCommand = &command{
	name:  "show group",
	usage: "show group GROUP",
	summary: "describe a consumer group as kafka-consumer-groups.sh --describe does (offsets), then --state --verbose " +
		"and --members --verbose; a classic group's generation follows",
	run: func(l *Lab, a *args) (string, error) {
		if err := l.requireCluster(); err != nil {
			return "", err
		}
		id, err := onePositional(a, "group id")
		if err != nil {
			return "", err
		}
		if err := a.finish(); err != nil {
			return "", err
		}
		d, gc, err := l.cluster.DescribeGroupErr(id)
		if err != nil {
			return "", err
		}
		g := describeGroup(l.cluster, d, gc)
		var b strings.Builder
		b.WriteString(strings.TrimPrefix(describe.Offsets(g, false), "\n"))
		b.WriteString(describe.State(g, true))
		b.WriteString(describe.Members(g, true))
		if d.Type == "classic" {
			fmt.Fprintf(&b, "\ngeneration %d (coordinator b%d, __consumer_offsets/%d)", d.Epoch, gc.Broker, gc.Partition)
		} else {
			fmt.Fprintf(&b, "\ngroup epoch %d, target assignment epoch %d (coordinator b%d, __consumer_offsets/%d)", d.Epoch, d.AssignmentEpoch, gc.Broker, gc.Partition)
		}
		return strings.TrimRight(b.String(), "\n"), nil
	},
}

var groupListCommand = &command{
	name:    "group list",
	usage:   "group list",
	summary: "list the consumer groups with their type and state, as kafka-consumer-groups.sh --list --type --state does",
	run: func(l *Lab, a *args) (string, error) {
		if err := l.requireCluster(); err != nil {
			return "", err
		}
		if err := a.finish(); err != nil {
			return "", err
		}
		var gs []describe.Group
		for _, d := range l.cluster.ListGroups() {
			gs = append(gs, describe.Group{ID: d.GroupID, Type: groupType(d.Type), State: d.State})
		}
		if len(gs) == 0 {
			return "no consumer groups", nil
		}
		return strings.TrimRight(describe.ListWithType(gs, true), "\n "), nil
	},
}

func groupType(t string) string {
	if t == "consumer" {
		return "Consumer"
	}
	return "Classic"
}

// describeGroup turns the coordinator's description into what the Admin
// client hands kafka-consumer-groups.sh: the coordinator node, the
// members, the committed offsets and every partition's latest offset.
func describeGroup(c *cluster.Cluster, d coordinator.GroupDescription, gc cluster.GroupCoordinator) describe.Group {
	g := describe.Group{ID: d.GroupID, Type: groupType(d.Type), State: d.State, AssignmentStrategy: d.Protocol,
		Coordinator:   describe.Node{ID: int32(gc.Broker), Host: string(kraft.BrokerNode(int32(gc.Broker))), Port: 9092},
		LogEndOffsets: map[describe.Partition]int64{}}
	if d.Type == "consumer" {
		epoch, target := d.Epoch, d.AssignmentEpoch
		g.GroupEpoch, g.TargetAssignmentEpoch = &epoch, &target
	}
	latest := func(p describe.Partition) {
		if off, ok := c.LatestOffset(tpOf(p)); ok {
			g.LogEndOffsets[p] = off
		}
	}
	for _, m := range d.Members {
		dm := describe.Member{ConsumerID: m.MemberID, GroupInstanceID: m.InstanceID, Host: m.Host, ClientID: m.ClientID}
		for _, tp := range m.Assigned {
			p := describe.Partition{Topic: tp.Topic, Partition: tp.Partition}
			dm.Assignment = append(dm.Assignment, p)
			latest(p)
		}
		if d.Type == "consumer" {
			epoch := m.MemberEpoch
			dm.MemberEpoch = &epoch
			for _, tp := range m.Target {
				dm.TargetAssignment = append(dm.TargetAssignment, describe.Partition{Topic: tp.Topic, Partition: tp.Partition})
			}
		}
		g.Members = append(g.Members, dm)
	}
	for _, o := range d.Offsets {
		p := describe.Partition{Topic: o.TP.Topic, Partition: o.TP.Partition}
		dc := describe.Committed{Partition: p, Offset: o.Offset}
		if o.LeaderEpoch >= 0 {
			e := o.LeaderEpoch
			dc.LeaderEpoch = &e
		}
		g.Committed = append(g.Committed, dc)
		latest(p)
	}
	return g
}

func tpOf(p describe.Partition) protocol.TopicPartition {
	return protocol.TopicPartition{Topic: p.Topic, Partition: p.Partition}
}
