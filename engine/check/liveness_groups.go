package check

import (
	"slices"

	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/protocol"
)

// GroupConverged is the consumer groups' liveness property: after a
// stabilize, every group with running members is Stable at its
// coordinator, each running member has joined and synced (or reconciled)
// and owns what it was given, and every partition of the topics the
// group subscribes to is owned by exactly one running member. A group
// that never settles (a rebalance storm, a member that loops) breaks it.
const GroupConverged = "group-converged"

// groupLags yields the groups' lags in the order their first consumer was
// created; false when yield stopped the walk.
func (w lagWalk) groupLags(yield func(Lag) bool) bool {
	c := w.c
	var groups []string
	for _, co := range c.Consumers() {
		if g := co.GroupID(); g != "" && !co.Closed() && len(co.Subscription()) > 0 && !slices.Contains(groups, g) {
			groups = append(groups, g)
		}
	}
	for _, g := range groups {
		if !w.groupLag(g, yield) {
			return false
		}
	}
	return true
}

func (w lagWalk) groupLag(group string, yield func(Lag) bool) bool {
	c := w.c
	var members []*client.Consumer
	blocked := ""
	for _, co := range c.Consumers() {
		if co.GroupID() != group || co.Closed() {
			continue
		}
		members = append(members, co)
		switch {
		case co.GroupError() != nil:
			blocked = firstReason(blocked, w.say("%s stopped with %v", co.ID, co.GroupError()))
		case c.ApplicationHolding(string(co.ID)):
			blocked = firstReason(blocked, w.say("%s's application holds records it has not processed, so it does not poll", co.ID))
		case c.ApplicationBusy(string(co.ID)):
			blocked = firstReason(blocked, w.say("%s's application is processing, away from poll", co.ID))
		}
	}
	// A fault that keeps the group's __consumer_offsets partition from
	// converging (no live ISR member to lead it, drop rules starving its
	// followers so its writes never commit) keeps the group from it too.
	blocked = firstReason(blocked, w.coordinatorBlocked(group))
	d, ok := c.DescribeGroup(group)
	switch {
	case !ok:
		return yield(Lag{GroupConverged, w.say("group %s has no loaded coordinator", group), blocked})
	case d.State != "Stable":
		return yield(Lag{GroupConverged, w.say("group %s is %s", group, d.State), blocked})
	}
	owners := map[protocol.TopicPartition]int{}
	for _, co := range members {
		if co.GroupError() != nil {
			continue // fenced for good: the application must close it
		}
		if phase := co.Phase(); phase != "stable" {
			return yield(Lag{GroupConverged, w.say("%s of group %s is %s", co.ID, group, phase), blocked})
		}
		for _, tp := range co.Assignment() {
			owners[tp]++
		}
	}
	for _, t := range subscriptions(members) {
		info := c.MetadataImage().Topic(t)
		if info == nil {
			continue
		}
		for i := range info.Partitions {
			tp := protocol.TopicPartition{Topic: t, Partition: int32(i)}
			if n := owners[tp]; n != 1 {
				return yield(Lag{GroupConverged, w.say("%s is owned by %d members of group %s", name(tp), n, group), blocked})
			}
		}
	}
	return true
}

// subscriptions is the union of the members' topics, in first-seen order.
func subscriptions(members []*client.Consumer) []string {
	var ts []string
	for _, co := range members {
		for _, t := range co.Subscription() {
			if !slices.Contains(ts, t) {
				ts = append(ts, t)
			}
		}
	}
	return ts
}

// coordinatorBlocked is the fault keeping a group's coordinator partition
// from converging: what excuses its first lag ("" when it has none, or
// none a fault excuses).
func (w lagWalk) coordinatorBlocked(group string) string {
	c := w.c
	partition, _ := c.GroupCoordinator(group)
	t := c.MetadataImage().Topic(broker.OffsetsTopic)
	if t == nil || partition < 0 || int(partition) >= len(t.Partitions) || t.Partitions[partition] == nil {
		return ""
	}
	noController := ""
	if c.ActiveController() == 0 {
		noController = w.say("no active controller: %d of %d controllers run", c.ControllersUp(), c.Controllers())
	}
	reason := ""
	w.partitionLags(t, protocol.TopicPartition{Topic: broker.OffsetsTopic, Partition: partition}, t.Partitions[partition], noController, func(l Lag) bool {
		if l.Blocked != "" {
			reason = w.say("its coordinator partition: %s", l.Blocked)
		}
		return false
	})
	return reason
}
