package cluster

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/group/coordinator"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/view"
)

// groupsView is every consumer group for the group panel: the groups of
// the lab's consumers in the order their first consumer was created, then
// the other groups the coordinators hold (empty ones keeping offsets), by
// id. The coordinator says who is a member and what the group committed;
// each member's client says what it owns, what it is revoking, its phase
// and its rebalances.
func (c *Cluster) groupsView() []view.Group {
	var ids []string
	for _, co := range c.consumers {
		if g := co.GroupID(); g != "" && !slices.Contains(ids, g) {
			ids = append(ids, g)
		}
	}
	for _, d := range c.ListGroups() {
		if !slices.Contains(ids, d.GroupID) {
			ids = append(ids, d.GroupID)
		}
	}
	out := make([]view.Group, 0, len(ids))
	for _, id := range ids {
		out = append(out, c.groupView(id))
	}
	return out
}

func (c *Cluster) groupView(id string) view.Group {
	d, gc, _ := c.DescribeGroup(id)
	g := view.Group{ID: id, Protocol: d.Type, State: d.State, Assignor: d.Protocol, Epoch: d.Epoch,
		AssignmentEpoch: d.AssignmentEpoch, Coordinator: gc.Broker, OffsetsPartition: int(gc.Partition)}
	if g.State == "" {
		g.State = "unknown (no coordinator)"
	}
	var clients []*client.Consumer
	for _, co := range c.consumers {
		if co.GroupID() == id {
			clients = append(clients, co)
			if g.Protocol == "" {
				g.Protocol = co.Config().GroupProtocol
			}
		}
	}
	listed := map[*client.Consumer]bool{}
	for _, m := range d.Members {
		co := clientOf(clients, m.MemberID)
		gm := view.GroupMember{MemberID: m.MemberID, Client: m.ClientID, InstanceID: m.InstanceID, Epoch: m.MemberEpoch, Colour: -1}
		if d.Type == "classic" {
			gm.Epoch = d.Epoch
		}
		if co != nil && !co.Closed() {
			listed[co] = true
			c.fillMember(&gm, co)
		} else {
			// A member the coordinator still counts whose process is gone:
			// it keeps its partitions until its session expires.
			gm.Assigned, gm.Revoking = tpNames(m.Assigned), tpNames(m.PendingRevocation)
			gm.Phase = "crashed"
			if co != nil {
				gm.Phase = co.Phase()
				gm.Colour = c.consumerIndex(co)
			}
		}
		g.Members = append(g.Members, gm)
	}
	for _, co := range clients {
		if !listed[co] && !co.Closed() {
			gm := view.GroupMember{MemberID: co.MemberID(), Client: string(co.ID), InstanceID: co.Config().GroupInstanceID, Epoch: co.Generation()}
			c.fillMember(&gm, co)
			g.Members = append(g.Members, gm)
		}
	}
	g.Partitions = c.groupPartitions(d, g.Members, clients)
	g.Rebalances = rebalancesView(clients)
	g.Ownership = c.ownershipView(g.Partitions, clients)
	return g
}

func clientOf(clients []*client.Consumer, memberID string) *client.Consumer {
	for _, co := range clients {
		if co.MemberID() == memberID && memberID != "" {
			return co
		}
	}
	return nil
}

// consumerIndex is a consumer's place in creation order: its colour, so
// a member keeps it across rebalances and restarts.
func (c *Cluster) consumerIndex(co *client.Consumer) int {
	return slices.Index(c.consumers, co)
}

func (c *Cluster) fillMember(gm *view.GroupMember, co *client.Consumer) {
	gm.Client, gm.Colour, gm.Phase = string(co.ID), c.consumerIndex(co), co.Phase()
	if c.busy(string(co.ID)) {
		gm.Phase += " (application busy)"
	}
	revoking := co.Revoking()
	gm.Revoking = tpNames(revoking)
	for _, tp := range co.Assignment() {
		if !slices.Contains(revoking, tp) {
			gm.Assigned = append(gm.Assigned, tpName(tp))
		}
	}
	m := co.Metrics()
	gm.Metrics = []view.Metric{
		{Name: "rebalance-total", Value: strconv.Itoa(m.RebalanceTotal)},
		{Name: "rebalance-latency-avg", Value: fmt.Sprintf("%.0f ms", m.RebalanceLatencyAvgMs)},
		{Name: "last-rebalance-seconds-ago", Value: secondsOrDash(m.LastRebalanceSecondsAgo)},
		{Name: "records-lag-max", Value: int64OrDash(m.RecordsLagMax)},
	}
}

// groupPartitions is the describe table: every partition of the
// subscribed topics and every partition with a committed offset.
func (c *Cluster) groupPartitions(d coordinator.GroupDescription, members []view.GroupMember, clients []*client.Consumer) []view.GroupPartition {
	var tps []protocol.TopicPartition
	for _, co := range clients {
		for _, t := range co.Subscription() {
			if info := c.controller.Image().Topic(t); info != nil {
				for i := range info.Partitions {
					tps = append(tps, protocol.TopicPartition{Topic: t, Partition: int32(i)})
				}
			}
		}
	}
	committed := map[protocol.TopicPartition]int64{}
	for _, o := range d.Offsets {
		tps = append(tps, o.TP)
		committed[o.TP] = o.Offset
	}
	slices.SortFunc(tps, compareTP)
	tps = slices.Compact(tps)
	out := make([]view.GroupPartition, 0, len(tps))
	for _, tp := range tps {
		p := view.GroupPartition{TP: tpName(tp), Colour: -1, Committed: -1, LogEnd: -1, Lag: -1}
		for _, m := range members {
			if slices.Contains(m.Assigned, p.TP) || slices.Contains(m.Revoking, p.TP) {
				p.Owner, p.Colour = m.Client, m.Colour
				break
			}
		}
		if off, ok := committed[tp]; ok {
			p.Committed = off
		}
		if end, ok := c.LatestOffset(tp); ok {
			p.LogEnd = end
			if p.Committed >= 0 {
				p.Lag = max(end-p.Committed, 0)
			}
		}
		out = append(out, p)
	}
	return out
}

// rebalancesView is every member's rebalance log, oldest first.
func rebalancesView(clients []*client.Consumer) []view.Rebalance {
	var out []view.Rebalance
	for _, co := range clients {
		for _, e := range co.RebalanceLog() {
			out = append(out, view.Rebalance{Client: string(co.ID), Protocol: e.Protocol, Start: e.Start.Milliseconds(),
				End: msOrNone(e.End), PausedFrom: msOrNone(e.StoppedFrom), PausedTo: msOrNone(e.StoppedTo),
				Revoked: tpNames(e.Revoked), Assigned: tpNames(e.Assigned), Reason: e.Reason})
		}
	}
	slices.SortStableFunc(out, func(a, b view.Rebalance) int { return int(a.Start - b.Start) })
	return out
}

func compareTP(a, b protocol.TopicPartition) int {
	if a.Topic != b.Topic {
		if a.Topic < b.Topic {
			return -1
		}
		return 1
	}
	return int(a.Partition - b.Partition)
}

func tpName(tp protocol.TopicPartition) string {
	return tp.Topic + "/" + strconv.Itoa(int(tp.Partition))
}

func tpNames(tps []protocol.TopicPartition) []string {
	var out []string
	for _, tp := range tps {
		out = append(out, tpName(tp))
	}
	return out
}

func secondsOrDash(s float64) string {
	if s < 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f s", s)
}

func int64OrDash(n int64) string {
	if n < 0 {
		return "-"
	}
	return strconv.FormatInt(n, 10)
}

// isInternalTopic: Kafka's internal topics, drawn collapsed.
func isInternalTopic(name string) bool { return name == broker.OffsetsTopic }

// msOrNone is a log time in milliseconds, -1 kept for "none".
func msOrNone(d time.Duration) int64 {
	if d < 0 {
		return -1
	}
	return d.Milliseconds()
}
