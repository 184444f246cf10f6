package consumer

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/loglab/loglab/engine/group/assignor"
)

// client is the member's side as the Java consumer plays it: a new
// assignment takes it a while to apply (its revocation callback commits
// offsets first), so it keeps owning the old partitions until then, and
// it reports what it really owns on every heartbeat.
type client struct {
	id     string
	topics []string
	epoch  int32
	owned  Partitions
	wanted Partitions // the last assignment received, not yet applied
	joined bool
}

func (c *client) heartbeat(g *Group, now int64, rng *rand.Rand) error {
	if c.wanted != nil && rng.IntN(3) == 0 {
		c.owned, c.wanted = c.wanted, nil
	}
	req := HeartbeatRequest{MemberID: c.id, MemberEpoch: c.epoch, RebalanceTimeoutMs: -1, OwnedTopicPartitions: c.owned}
	if !c.joined {
		req.RebalanceTimeoutMs, req.SubscribedTopicNames, req.OwnedTopicPartitions = 300000, c.topics, Partitions{}
	}
	resp, err := g.Heartbeat(now, req)
	if err != nil {
		return err
	}
	c.joined, c.epoch = true, resp.MemberEpoch
	if resp.Assignment != nil {
		c.wanted = resp.Assignment
	}
	return nil
}

// noDoubleOwnership is the protocol's safety promise: at no moment do
// two members own (consume) the same partition.
func noDoubleOwnership(clients []*client) error {
	seen := map[assignor.TopicPartition]string{}
	for _, c := range clients {
		var err error
		eachPartition(c.owned, func(tp assignor.TopicPartition) {
			if o, ok := seen[tp]; ok && err == nil {
				err = fmt.Errorf("%s owned by both %s and %s", tp, o, c.id)
			}
			seen[tp] = c.id
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// TestMembersJoiningOneByOneConverge: members join one at a time and
// heartbeat in a shuffled order; after every heartbeat no partition is
// owned by two members, and the group ends Stable at its last group
// epoch with every subscribed partition owned by exactly one member.
func TestMembersJoiningOneByOneConverge(t *testing.T) {
	topics := assignor.Topics{"foo": 7, "bar": 4}
	fb := []string{"foo", "bar"}
	for _, a := range []assignor.Assignor{assignor.Uniform{}, assignor.ServerRange{}} {
		for seed := uint64(1); seed <= 20; seed++ {
			t.Run(fmt.Sprintf("%s/seed=%d", a.Name(), seed), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(seed, 0))
				g := NewGroup("g", a, topics, DefaultConfig())
				all := []*client{{id: "m1", topics: fb}, {id: "m2", topics: fb}, {id: "m3", topics: []string{"bar"}},
					{id: "m4", topics: fb}, {id: "m5", topics: fb}}
				now := int64(0)
				for n := 1; n <= len(all); n++ {
					joined := all[:n]
					if err := joined[n-1].heartbeat(g, now, rng); err != nil {
						t.Fatal(err)
					}
					for round := 0; ; round++ {
						if round == 50 {
							t.Fatalf("%d members: no convergence after 50 rounds; group %s", n, g.State())
						}
						for _, i := range rng.Perm(n) {
							now += 100
							if err := joined[i].heartbeat(g, now, rng); err != nil {
								t.Fatalf("%s: %v", joined[i].id, err)
							}
							if err := noDoubleOwnership(joined); err != nil {
								t.Fatalf("after %s's heartbeat: %v", joined[i].id, err)
							}
						}
						if g.State() == GroupStable && settled(joined) {
							break
						}
					}
					checkConverged(t, g, joined, topics)
				}
			})
		}
	}
}

func settled(clients []*client) bool {
	for _, c := range clients {
		if c.wanted != nil {
			return false
		}
	}
	return true
}

func checkConverged(t *testing.T, g *Group, clients []*client, topics assignor.Topics) {
	t.Helper()
	for _, c := range clients {
		m := g.members[c.id]
		if m.State != Stable || m.MemberEpoch != g.GroupEpoch() || c.epoch != g.GroupEpoch() {
			t.Fatalf("%s: %s at epoch %d (client %d), group epoch %d", c.id, m.State, m.MemberEpoch, c.epoch, g.GroupEpoch())
		}
		if !c.owned.Equal(m.Assigned) || !m.Assigned.Equal(g.Target(c.id)) {
			t.Fatalf("%s owns %v, coordinator says %v, target %v", c.id, c.owned, m.Assigned, g.Target(c.id))
		}
	}
	for _, topic := range []string{"bar", "foo"} {
		for p := int32(0); p < topics[topic]; p++ {
			tp := assignor.TopicPartition{Topic: topic, Partition: p}
			owners := 0
			for _, c := range clients {
				if c.owned.has(topic, p) {
					owners++
				}
			}
			if owners != 1 || g.Owner(tp) == "" {
				t.Fatalf("%s owned by %d members (coordinator owner %q)", tp, owners, g.Owner(tp))
			}
		}
	}
}
