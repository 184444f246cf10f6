package lessons

import "testing"

// TestRebalanceProtocolChecks: the same join (a third member while the
// first holds a batch for 20 s) under eager range, cooperative-sticky and
// KIP-848, as lesson 14 plays it. The values are what Kafka's protocols
// imply: eager revokes every partition and the idle member waits for the
// busy one (AbstractCoordinator's join barrier, ConsumerCoordinator.
// onJoinPrepare); cooperative keeps what stays and moves one partition in a
// second generation that waits for the others' heartbeats (KIP-429);
// KIP-848 moves one partition from the idle owner within heartbeats.
func TestRebalanceProtocolChecks(t *testing.T) {
	p := NewPlayer()
	defer p.Close()
	expectChecks(t, p, "before a cluster", []checkCase{
		{"group-state", []string{"g-eager"}, "none"},
		{"generation", []string{"g-eager"}, "none"},
		{"owned", []string{"g-eager", "e1"}, "none"},
	})
	runAll(p, "cluster brokers=3 seed=14 offsets.topic.num.partitions=3",
		"topic create events partitions=4 rf=3",
		"produce events key=k{i} value=e{i} count=40",
		"consumer create e1 group=g-eager topics=events partition.assignment.strategy=range auto.offset.reset=earliest",
		"consumer create e2 group=g-eager topics=events partition.assignment.strategy=range auto.offset.reset=earliest",
		"consumer create c1 group=g-coop topics=events partition.assignment.strategy=cooperative-sticky auto.offset.reset=earliest",
		"consumer create c2 group=g-coop topics=events partition.assignment.strategy=cooperative-sticky auto.offset.reset=earliest",
		"consumer create k1 group=g-848 topics=events group.protocol=consumer auto.offset.reset=earliest",
		"consumer create k2 group=g-848 topics=events group.protocol=consumer auto.offset.reset=earliest",
		"consumer create u1 group=g-upgrade topics=events",
		"stabilize")
	expectChecks(t, p, "three groups of two", []checkCase{
		{"group-state", []string{"g-eager"}, "Stable"},
		{"generation", []string{"g-eager"}, "1"},
		{"generation", []string{"g-848"}, "2"}, // one group epoch per member joining
		{"owned", []string{"g-eager", "e1"}, "events/0,events/1"},
		{"owned", []string{"g-eager", "e2"}, "events/2,events/3"},
		{"owned", []string{"g-eager", "nobody"}, "none"},
		{"fetchable", []string{"e2"}, "2"},
		{"rebalance-protocol", []string{"g-eager"}, "eager"},
		{"rebalance-protocol", []string{"g-coop"}, "cooperative"},
		{"rebalance-protocol", []string{"g-848"}, "consumer"},
		// Kafka 4's default list [range, cooperative-sticky]: range
		// supports only EAGER, so the client is eager.
		{"rebalance-protocol", []string{"g-upgrade"}, "eager"},
		{"rebalance-protocol", []string{"g-none"}, "none"},
	})
	runAll(p, "poll e1 max=5 hold=true", "poll c1 max=5 hold=true", "poll k1 max=5 hold=true",
		"consumer create e3 group=g-eager topics=events partition.assignment.strategy=range auto.offset.reset=earliest",
		"consumer create c3 group=g-coop topics=events partition.assignment.strategy=cooperative-sticky auto.offset.reset=earliest",
		"consumer create k3 group=g-848 topics=events group.protocol=consumer auto.offset.reset=earliest",
		"tick 12s")
	expectChecks(t, p, "12 s into the batches", []checkCase{
		{"group-state", []string{"g-eager"}, "PreparingRebalance"},
		{"fetchable", []string{"e2"}, "0"}, // eager: revoked everything
		{"fetchable", []string{"c2"}, "2"}, // cooperative: keeps its partitions
		{"fetchable", []string{"k3"}, "1"}, // KIP-848: no barrier
		{"fetchable", []string{"e3"}, "0"},
		{"owned", []string{"g-848", "k3"}, "events/3"},
		{"stopped-partitions", []string{"g-eager", "e3"}, "2"}, // e2's; e1 has not rejoined
		{"stopped-partitions", []string{"g-coop", "c3"}, "0"},
		{"stopped-partitions", []string{"g-848", "k3"}, "1"},
		// e2's partitions have had no owner since its revocation, and
		// the pause is still running.
		{"pause", []string{"g-eager", "e3"}, "10"},
		{"pause", []string{"g-848", "k3"}, "1"},
		{"longest-wait", []string{"e3", "c3", "k3"}, "e3,c3"}, // both still waiting since the same instant
	})
	runAll(p, "process e1 time=8s", "process c1", "process k1", "stabilize")
	expectChecks(t, p, "after the batches", []checkCase{
		{"generation", []string{"g-eager"}, "2"},
		{"generation", []string{"g-coop"}, "3"}, // two rounds
		{"generation", []string{"g-848"}, "3"},
		{"owned", []string{"g-coop", "c3"}, "events/2"}, // taken from the leader c1 itself in generation 2
		{"stopped-partitions", []string{"g-eager", "e3"}, "4"},
		{"stopped-partitions", []string{"g-coop", "c3"}, "1"},
		{"stopped-partitions", []string{"g-848", "k3"}, "1"},
		{"pause", []string{"g-eager", "e3"}, "18"}, // from e2's heartbeat to the end of e1's batch
		{"pause", []string{"g-coop", "c3"}, "3"},   // one heartbeat.interval.ms for the second round
		{"pause", []string{"g-848", "k3"}, "1"},
		{"longest-wait", []string{"e3", "c3", "k3"}, "c3"},
		{"longest-wait", []string{"e3", "k3"}, "e3"},
		{"group-processed", []string{"g-eager"}, "5"},
	})
	runAll(p, "consumer close u1", "tick 1s")
	expectChecks(t, p, "u1 closed", []checkCase{
		{"rebalance-protocol", []string{"g-upgrade"}, "none"},
		{"fetchable", []string{"u1"}, "0"},
		{"group-state", []string{"g-upgrade"}, "Empty"},
	})
	for _, bad := range [][]string{{"owned", "g"}, {"fetchable", "nobody"}, {"pause", "g-eager", "c3"}, {"pause", "g-eager", "nobody"},
		{"longest-wait", "e3"}, {"stopped-partitions", "g-eager"}, {"generation"}, {"group-processed"}} {
		if _, err := p.Evaluate(bad[0], bad[1:]); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

// TestStaticMembershipChecks: a crashed static member keeps its partitions
// until its session expires (nothing tells the coordinator it is gone), a
// static restart keeps the generation (ClassicGroup.replaceStaticMember),
// and a second process with the same group.instance.id fences the first,
// whose group membership then fails with FencedInstanceIdException.
func TestStaticMembershipChecks(t *testing.T) {
	p := NewPlayer()
	defer p.Close()
	runAll(p, "cluster brokers=1 seed=15 offsets.topic.num.partitions=1 offsets.topic.replication.factor=1",
		"topic create orders partitions=2",
		"consumer create s1 group=shop topics=orders group.instance.id=shop-1",
		"consumer create s2 group=shop topics=orders group.instance.id=shop-2",
		"consumer create a1 group=other topics=orders",
		"stabilize")
	expectChecks(t, p, "two static members", []checkCase{
		{"generation", []string{"shop"}, "1"},
		{"owned", []string{"shop", "s2"}, "orders/1"},
		{"group-error", []string{"s1"}, "none"},
		{"group-processed", []string{"shop"}, "0"},
	})
	runAll(p, "consumer close s2", "tick 2s", "consumer restart s2", "tick 2s")
	expectChecks(t, p, "s2 restarted", []checkCase{
		{"generation", []string{"shop"}, "1"},
		{"owned", []string{"shop", "s2"}, "orders/1"},
	})
	runAll(p, "consumer crash s2", "tick 20s")
	expectChecks(t, p, "s2 crashed, its session not expired", []checkCase{
		{"owned", []string{"shop", "s2"}, "orders/1"},
		{"fetchable", []string{"s2"}, "0"},
		{"generation", []string{"shop"}, "1"},
	})
	runAll(p, "consumer create s1b group=shop topics=orders group.instance.id=shop-1", "tick 5s")
	expectChecks(t, p, "a second process with shop-1", []checkCase{
		{"group-error", []string{"s1"}, "FencedInstanceIdException"},
		{"group-error", []string{"s1b"}, "none"},
		{"group-error", []string{"a1"}, "none"},
	})
}
