package cluster

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/client"
)

// groupProtocols are the three ways a Kafka 4 consumer joins a group.
var groupProtocols = []struct {
	name string
	set  func(*client.ConsumerConfig)
}{
	{"classic eager (range)", func(c *client.ConsumerConfig) { c.PartitionAssignmentStrategy = []string{"range"} }},
	{"classic cooperative-sticky", func(c *client.ConsumerConfig) { c.PartitionAssignmentStrategy = []string{"cooperative-sticky"} }},
	{"consumer (KIP-848)", func(c *client.ConsumerConfig) { c.GroupProtocol = client.GroupProtocolConsumer }},
}

// groupLivenessCluster is three brokers with a 6-partition topic, the
// checker on every event, and group timers of a few seconds.
func groupLivenessCluster(t *testing.T, seed uint64) *Cluster {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Seed = seed
	cfg.Broker.Groups.OffsetsTopicNumPartitions = 3
	cfg.Broker.Groups.InitialRebalanceDelay = 500 * time.Millisecond
	cfg.Broker.Groups.ConsumerSessionTimeout = 6 * time.Second
	cfg.Broker.Groups.ConsumerHeartbeatInterval = time.Second
	c, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.Checker().EveryStep = true
	if err := c.CreateTopic("orders", 6, 3, nil); err != nil {
		t.Fatal(err)
	}
	return c
}

func groupMemberConfig(set func(*client.ConsumerConfig)) client.ConsumerConfig {
	cfg := client.DefaultConsumerConfig()
	cfg.GroupID = "g"
	cfg.AutoOffsetReset = "earliest"
	cfg.SessionTimeout, cfg.HeartbeatInterval, cfg.MaxPollInterval = 6*time.Second, time.Second, 20*time.Second
	set(&cfg)
	return cfg
}

// stabilizeGroup runs stabilize and fails unless the cluster converged
// with the group Stable, every running member owning what it was given
// and each partition owned once, and the checker found nothing.
func stabilizeGroup(t *testing.T, c *Cluster, after string) {
	t.Helper()
	s, err := c.Stabilize()
	if err != nil {
		t.Fatalf("after %s: %v", after, err)
	}
	if !s.Converged() {
		t.Fatalf("after %s: not converged: %+v", after, s.Lags)
	}
	if ls := lagsOf(c, GroupConverged); len(ls) > 0 {
		t.Fatalf("after %s: %v", after, ls)
	}
	if vs := c.Checker().Violations(); len(vs) > 0 {
		t.Fatalf("after %s: %v", after, vs)
	}
	owned := 0
	for _, co := range c.Consumers() {
		if !co.Closed() {
			owned += len(co.Assignment())
		}
	}
	if owned != 6 {
		t.Fatalf("after %s: the running members own %d partitions, want the topic's 6", after, owned)
	}
}

// A group of three converges under each protocol after members join,
// one leaves (close: LeaveGroup), one crashes (its session expires at
// the coordinator), it restarts, and the coordinator's broker crashes (a
// new leader of the group's __consumer_offsets partition replays it and
// the members find it).
func TestGroupsConvergeUnderEachProtocol(t *testing.T) {
	for i, p := range groupProtocols {
		t.Run(p.name, func(t *testing.T) {
			c := groupLivenessCluster(t, uint64(20+i))
			cfg := groupMemberConfig(p.set)
			var members []*client.Consumer
			for _, name := range []string{"m1", "m2", "m3"} {
				co, err := c.CreateGroupConsumer(name, cfg, []string{"orders"})
				if err != nil {
					t.Fatal(err)
				}
				members = append(members, co)
			}
			stabilizeGroup(t, c, "three members joined")
			for _, co := range members {
				if n := len(co.Assignment()); n != 2 {
					t.Fatalf("%s owns %d partitions, want 2 of 6", co.ID, n)
				}
			}

			if _, err := c.CloseConsumer(members[2]); err != nil {
				t.Fatal(err)
			}
			stabilizeGroup(t, c, "m3 left")

			c.CrashConsumer(members[1])
			stabilizeGroup(t, c, "m2 crashed")
			if n := len(members[0].Assignment()); n != 6 {
				t.Fatalf("m1 alone owns %d partitions, want 6", n)
			}

			for _, name := range []string{"m2", "m3"} {
				if _, err := c.RestartConsumer(name); err != nil {
					t.Fatal(err)
				}
			}
			stabilizeGroup(t, c, "m2 and m3 restarted")

			old := c.Coordinator("g")
			if err := c.CrashBroker(old.Broker, false); err != nil {
				t.Fatal(err)
			}
			stabilizeGroup(t, c, fmt.Sprintf("the coordinator b%d crashed", old.Broker))
			if now := c.Coordinator("g"); now.Broker == old.Broker || now.Broker == 0 {
				t.Fatalf("the coordinator is b%d, was b%d: no failover", now.Broker, old.Broker)
			}
			for _, name := range []string{"m1", "m2", "m3"} {
				if co := c.Consumer(name); int(co.Coordinator()) != c.Coordinator("g").Broker {
					t.Fatalf("%s talks to coordinator b%d, the group's is b%d", name, co.Coordinator(), c.Coordinator("g").Broker)
				}
			}
		})
	}
}

// A member that keeps rejoining never lets its group settle, and
// stabilize says so: an application that calls subscribe() with another
// topic list on every loop (a real bug with regex subscriptions racing a
// topic's creation and deletion) makes each of its polls request a
// rejoin ("subscription changed"), so the group rebalances without end.
// A classic group never settles: stabilize runs its ten minutes and
// records a group-converged violation. A KIP-848 group has no barrier and
// passes through Stable between reconciliations, so stabilize may settle
// at such a moment: the quiet window after it then finds the group
// unsettled again, with no command and no fault in between, and records
// the violation too. The same groups left alone converge
// (TestGroupsConvergeUnderEachProtocol).
func TestGroupRebalanceStormIsCaught(t *testing.T) {
	nativeOnly(t, "two ten-minute stabilizes of a rebalance storm, 33 s under node")
	// Cooperative-sticky loops as eager does (the classic barrier): two
	// ten-minute stabilizes are enough.
	for i, p := range []int{0, 2} {
		p := groupProtocols[p]
		t.Run(p.name, func(t *testing.T) {
			c := groupLivenessCluster(t, uint64(30+i))
			if err := c.CreateTopic("audit", 2, 3, nil); err != nil {
				t.Fatal(err)
			}
			cfg := groupMemberConfig(p.set)
			var flapper *client.Consumer
			for _, name := range []string{"m1", "m2", "m3"} {
				co, err := c.CreateGroupConsumer(name, cfg, []string{"orders"})
				if err != nil {
					t.Fatal(err)
				}
				flapper = co
			}
			stabilizeGroup(t, c, "three members joined")
			// The looping application: every 300 ms m3 subscribes to
			// another topic list.
			flip := false
			var loop func()
			loop = func() {
				if flapper.Closed() {
					return
				}
				flip = !flip
				topics := []string{"orders"}
				if flip {
					topics = append(topics, "audit")
				}
				if err := flapper.Subscribe(topics); err != nil {
					t.Error(err)
				}
				c.sched.After(300*time.Millisecond, "test-resubscribe", loop)
			}
			loop()
			s, err := c.Stabilize()
			if err != nil {
				t.Fatal(err)
			}
			if s.Converged() {
				t.Fatalf("a group rebalancing without end converged: %+v", s)
			}
			var found []string
			for _, v := range c.Checker().Violations() {
				if v.Invariant == GroupConverged {
					found = append(found, v.Detail)
				}
			}
			if len(found) == 0 || !slices.ContainsFunc(found, func(d string) bool { return strings.Contains(d, "group g") || strings.Contains(d, "of group g") }) {
				t.Fatalf("no group-converged violation for group g; violations: %v", c.Checker().Violations())
			}
			t.Logf("caught: %s", found[0])
		})
	}
}
