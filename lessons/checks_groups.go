package lessons

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/group/coordinator"
	"github.com/loglab/loglab/engine/protocol"
)

// Checks for the consumer group lessons (13 queue and pub/sub, 14 the
// rebalance protocols, 15 static membership). The coordinator's side is
// read as kafka-consumer-groups.sh --describe reads it (DescribeGroup);
// the client's side from the consumers themselves, and the pauses a
// rebalance causes from each member's rebalance log (the data behind
// Kafka's rebalance-latency-avg and the lab's rebalance timeline), never
// from a transcript. A group or consumer that does not exist (yet) gives
// "none" rather than an error, so a goal can start out false.
func init() {
	register("group-state", "group-state G: the group's state as kafka-consumer-groups.sh --describe --state prints it (Empty, PreparingRebalance, CompletingRebalance, Stable, Dead; consumer protocol: Empty, Assigning, Reconciling, Stable), `none` when its coordinator has no group G", groupState)
	register("generation", "generation G: the classic group's generation, or the consumer group's group epoch (KIP-848), `none` for no group", groupGeneration)
	register("owned", "owned G C: the partitions the coordinator assigns consumer C (its client.id) in group G, as T/P comma-separated in order, `none` if none or C is no member", ownedByMember)
	register("fetchable", "fetchable C: how many partitions consumer C may fetch from now, client-side: assigned, not being revoked, not paused; 0 for a closed or crashed consumer", fetchable)
	register("group-processed", "group-processed G: how many distinct records the applications of group G's consumers have processed", groupProcessed)
	register("rebalance-protocol", "rebalance-protocol G: how the running consumers of group G rebalance: `eager` or `cooperative` (classic: the highest protocol every assignor of partition.assignment.strategy supports), `consumer` (KIP-848), `mixed` when they differ, `none` without one", rebalanceProtocol)
	register("stopped-partitions", "stopped-partitions G J: how many partitions members of group G revoked or lost since consumer J joined (its first rebalance log entry)", stoppedPartitions)
	register("pause", "pause G J: since consumer J joined, the longest time one of group G's partitions was owned by no member (from a member's revocation to the next assignment of it, both in the members' rebalance logs), in whole seconds", pause)
	register("group-error", "group-error C: what consumer C's group membership failed with, fatally: the Java exception (FencedInstanceIdException) or the Kafka error name its error starts with, `none` without one", groupError)
	register("longest-wait", "longest-wait C C...: which of these consumers waited longest from joining to its first assigned partition (its rebalance log); names comma-separated on a tie", longestWait)
}

// describe asks the group's coordinator; false without a cluster, a
// loaded coordinator or the group.
func describe(s State, group string) (coordinator.GroupDescription, bool) {
	if s.Lab.Cluster() == nil {
		return coordinator.GroupDescription{}, false
	}
	d, _, ok := s.Lab.Cluster().DescribeGroup(group)
	return d, ok
}

func groupState(s State, args []string) (string, error) {
	if len(args) != 1 {
		return "", fmt.Errorf("wants a group id")
	}
	d, ok := describe(s, args[0])
	if !ok {
		return "none", nil
	}
	return d.State, nil
}

func groupGeneration(s State, args []string) (string, error) {
	if len(args) != 1 {
		return "", fmt.Errorf("wants a group id")
	}
	d, ok := describe(s, args[0])
	if !ok {
		return "none", nil
	}
	return strconv.Itoa(int(d.Epoch)), nil
}

func tpNames(tps []protocol.TopicPartition) string {
	if len(tps) == 0 {
		return "none"
	}
	sorted := slices.Clone(tps)
	slices.SortFunc(sorted, func(a, b protocol.TopicPartition) int {
		if c := strings.Compare(a.Topic, b.Topic); c != 0 {
			return c
		}
		return int(a.Partition - b.Partition)
	})
	names := make([]string, len(sorted))
	for i, tp := range sorted {
		names[i] = tp.Topic + "/" + strconv.Itoa(int(tp.Partition))
	}
	return strings.Join(names, ",")
}

// ownedByMember reads the coordinator's assignment. A client can be
// listed twice (a crashed member not yet expired beside its restarted
// process): the member the client runs now is the one asked about.
func ownedByMember(s State, args []string) (string, error) {
	if len(args) != 2 {
		return "", fmt.Errorf("wants GROUP CONSUMER")
	}
	d, ok := describe(s, args[0])
	if !ok {
		return "none", nil
	}
	current := ""
	if co := s.Lab.Cluster().Consumer(args[1]); co != nil && !co.Closed() {
		current = co.MemberID()
	}
	var found *coordinator.MemberDescription
	for i, m := range d.Members {
		if m.ClientID != args[1] {
			continue
		}
		if found == nil || m.MemberID == current {
			found = &d.Members[i]
		}
	}
	if found == nil {
		return "none", nil
	}
	return tpNames(found.Assigned), nil
}

func fetchable(s State, args []string) (string, error) {
	if len(args) != 1 {
		return "", fmt.Errorf("wants a consumer name")
	}
	if err := needCluster(s); err != nil {
		return "", err
	}
	co := s.Lab.Cluster().Consumer(args[0])
	if co == nil {
		return "", fmt.Errorf("no consumer %s", args[0])
	}
	if co.Closed() {
		return "0", nil
	}
	n := 0
	for _, tp := range co.Assignment() {
		if !slices.Contains(co.Revoking(), tp) && !slices.Contains(co.Paused(), tp) {
			n++
		}
	}
	return strconv.Itoa(n), nil
}

// groupProcessed counts the records of every partition the lab's ledger
// says group G processed at least once (the ledger's scope for a group
// consumer is its group: a record two members processed counts once).
func groupProcessed(s State, args []string) (string, error) {
	if len(args) != 1 {
		return "", fmt.Errorf("wants a group id")
	}
	if err := needCluster(s); err != nil {
		return "", err
	}
	c := s.Lab.Cluster()
	n := 0
	for _, t := range s.Lab.View().Topics {
		for _, p := range t.Partitions {
			tp := protocol.TopicPartition{Topic: t.Name, Partition: int32(p.Index)}
			end, ok := c.LatestOffset(tp)
			if !ok {
				continue
			}
			for off := int64(0); off < end; off++ {
				if c.TimesProcessed("group "+args[0], tp, off) > 0 {
					n++
				}
			}
		}
	}
	return strconv.Itoa(n), nil
}

// groupConsumers are the lab's consumers in group G, in creation order
// (a restarted consumer is its newest process).
func groupConsumers(s State, group string) []*client.Consumer {
	var out []*client.Consumer
	for _, co := range s.Lab.Cluster().Consumers() {
		if co.GroupID() == group {
			out = append(out, co)
		}
	}
	return out
}

func rebalanceProtocol(s State, args []string) (string, error) {
	if len(args) != 1 {
		return "", fmt.Errorf("wants a group id")
	}
	if err := needCluster(s); err != nil {
		return "", err
	}
	got := ""
	for _, co := range groupConsumers(s, args[0]) {
		if co.Closed() {
			continue
		}
		switch p := co.RebalanceProtocol(); {
		case got == "":
			got = p
		case got != p:
			return "mixed", nil
		}
	}
	if got == "" {
		return "none", nil
	}
	return got, nil
}

// joinedAt is when consumer name started its first rebalance: its
// JoinGroup (classic) or its first heartbeat (KIP-848).
func joinedAt(s State, name string) (*client.Consumer, time.Duration, error) {
	if err := needCluster(s); err != nil {
		return nil, 0, err
	}
	co := s.Lab.Cluster().Consumer(name)
	if co == nil {
		return nil, 0, fmt.Errorf("no consumer %s", name)
	}
	log := co.RebalanceLog()
	if len(log) == 0 {
		return nil, 0, fmt.Errorf("consumer %s has not joined its group yet", name)
	}
	return co, log[0].Start, nil
}

// ownership is one change in who owns a partition, from a member's
// rebalance log: revoked (or lost) by it, or assigned to it.
type ownership struct {
	tp      protocol.TopicPartition
	at      time.Duration
	revoked bool
}

// ownershipChanges lists group G's revocations and assignments at or after
// since, from every member's rebalance log.
func ownershipChanges(s State, group string, since time.Duration) []ownership {
	var out []ownership
	for _, co := range groupConsumers(s, group) {
		for _, e := range co.RebalanceLog() {
			if e.RevokedAt >= since {
				for _, tp := range e.Revoked {
					out = append(out, ownership{tp: tp, at: e.RevokedAt, revoked: true})
				}
			}
			if e.AssignedAt >= since {
				for _, tp := range e.Assigned {
					out = append(out, ownership{tp: tp, at: e.AssignedAt})
				}
			}
		}
	}
	return out
}

func groupAndJoiner(s State, args []string) (time.Duration, error) {
	if len(args) != 2 {
		return 0, fmt.Errorf("wants GROUP CONSUMER")
	}
	co, since, err := joinedAt(s, args[1])
	if err != nil {
		return 0, err
	}
	if co.GroupID() != args[0] {
		return 0, fmt.Errorf("consumer %s is not in group %s", args[1], args[0])
	}
	return since, nil
}

func stoppedPartitions(s State, args []string) (string, error) {
	since, err := groupAndJoiner(s, args)
	if err != nil {
		return "", err
	}
	stopped := map[protocol.TopicPartition]bool{}
	for _, o := range ownershipChanges(s, args[0], since) {
		if o.revoked {
			stopped[o.tp] = true
		}
	}
	return strconv.Itoa(len(stopped)), nil
}

// pause is the longest gap in a partition's ownership: from a revocation
// to the first assignment of that partition at or after it (to the same
// member or another), or to now if nobody got it back yet. Eager members
// revoke everything and get it back only after the slowest member
// rejoined; cooperative and KIP-848 members revoke only what moves.
func pause(s State, args []string) (string, error) {
	since, err := groupAndJoiner(s, args)
	if err != nil {
		return "", err
	}
	changes := ownershipChanges(s, args[0], since)
	now := s.Lab.Cluster().Elapsed()
	var longest time.Duration
	for _, r := range changes {
		if !r.revoked {
			continue
		}
		back := now
		for _, a := range changes {
			if !a.revoked && a.tp == r.tp && a.at >= r.at && a.at < back {
				back = a.at
			}
		}
		longest = max(longest, back-r.at)
	}
	return strconv.Itoa(int(math.Round(longest.Seconds()))), nil
}

// firstAssignmentWait is how long consumer co waited from its first
// rebalance to its first partition (until now while it has none).
func firstAssignmentWait(co *client.Consumer, now time.Duration) (time.Duration, bool) {
	log := co.RebalanceLog()
	if len(log) == 0 {
		return 0, false
	}
	for _, e := range log {
		if e.AssignedAt >= 0 && len(e.Assigned) > 0 {
			return e.AssignedAt - log[0].Start, true
		}
	}
	return now - log[0].Start, true
}

func longestWait(s State, args []string) (string, error) {
	if len(args) < 2 {
		return "", fmt.Errorf("wants two consumers or more")
	}
	if err := needCluster(s); err != nil {
		return "", err
	}
	now := s.Lab.Cluster().Elapsed()
	var names []string
	var longest time.Duration = -1
	for _, name := range args {
		co := s.Lab.Cluster().Consumer(name)
		if co == nil {
			return "", fmt.Errorf("no consumer %s", name)
		}
		w, ok := firstAssignmentWait(co, now)
		if !ok {
			return "", fmt.Errorf("consumer %s has not joined its group yet", name)
		}
		// Compared to the millisecond, as the transcript prints times.
		w = w.Truncate(time.Millisecond)
		switch {
		case w > longest:
			longest, names = w, []string{name}
		case w == longest:
			names = append(names, name)
		}
	}
	return strings.Join(names, ","), nil
}

// groupError names a consumer's fatal group error: the exception a Java
// application would catch from its next poll (FencedInstanceIdException
// for a static member another process replaced).
func groupError(s State, args []string) (string, error) {
	if len(args) != 1 {
		return "", fmt.Errorf("wants a consumer name")
	}
	if err := needCluster(s); err != nil {
		return "", err
	}
	co := s.Lab.Cluster().Consumer(args[0])
	if co == nil {
		return "", fmt.Errorf("no consumer %s", args[0])
	}
	if co.GroupError() == nil {
		return "none", nil
	}
	name, _, _ := strings.Cut(co.GroupError().Error(), ":")
	return strings.TrimSpace(name), nil
}
