package consumer

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/loglab/loglab/engine/group/assignor"
)

// heartbeatAs is client.heartbeat for a consumer with group.instance.id.
func (c *client) heartbeatAs(g *Group, instance string, now int64, rng *rand.Rand) error {
	if c.wanted != nil && rng.IntN(3) == 0 {
		c.owned, c.wanted = c.wanted, nil
	}
	req := HeartbeatRequest{MemberID: c.id, InstanceID: instance, MemberEpoch: c.epoch, RebalanceTimeoutMs: -1, OwnedTopicPartitions: c.owned}
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

// TestDepartedStaticMember: a static member closes (epoch -2) in a
// stable group. While it is away nothing moves: no group epoch bump,
// the others keep exactly what they own, its partitions are nobody's.
// Then either a consumer with its instance id comes back under a new
// member id before the session timeout and gets the same partitions at
// the same epoch, or none does and the session timeout removes it: the
// group rebalances and converges without it, every partition owned by
// exactly one member.
func TestDepartedStaticMember(t *testing.T) {
	topics := assignor.Topics{"foo": 7, "bar": 4}
	fb := []string{"foo", "bar"}
	for _, a := range []assignor.Assignor{assignor.Uniform{}, assignor.ServerRange{}} {
		for _, returns := range []bool{true, false} {
			for seed := uint64(1); seed <= 10; seed++ {
				t.Run(fmt.Sprintf("%s/returns=%v/seed=%d", a.Name(), returns, seed), func(t *testing.T) {
					rng := rand.New(rand.NewPCG(seed, 0))
					g := NewGroup("g", a, topics, DefaultConfig())
					c1, c2, s := &client{id: "c1", topics: fb}, &client{id: "c2", topics: fb}, &client{id: "s1", topics: fb}
					all := []*client{c1, c2, s}
					now := int64(0)
					beat := func(c *client) {
						t.Helper()
						now += 500
						instance := ""
						if c == s {
							instance = "i-s"
						}
						if err := c.heartbeatAs(g, instance, now, rng); err != nil {
							t.Fatalf("%s at %d: %v", c.id, now, err)
						}
						// Only the departed static member may expire, and
						// only if it never comes back.
						for _, e := range g.Expire(now) {
							if e.MemberID != "s1" || returns {
								t.Fatalf("%s expired at %d: %s", e.MemberID, now, e.Reason)
							}
						}
					}
					converge := func(clients []*client) {
						t.Helper()
						for round := 0; !(g.State() == GroupStable && settled(clients)); round++ {
							if round == 100 {
								t.Fatalf("no convergence after 100 rounds; group %s", g.State())
							}
							for _, i := range rng.Perm(len(clients)) {
								beat(clients[i])
								if err := noDoubleOwnership(clients); err != nil {
									t.Fatal(err)
								}
							}
						}
						checkConverged(t, g, clients, topics)
					}
					for _, c := range all {
						beat(c)
					}
					converge(all)

					// s closes: the Java consumer revokes its partitions
					// and sends its -2 leave.
					epoch, held := g.GroupEpoch(), s.owned
					lastHeartbeat := now
					resp, err := g.Heartbeat(now, HeartbeatRequest{MemberID: s.id, InstanceID: "i-s", MemberEpoch: LeaveGroupStaticMemberEpoch, RebalanceTimeoutMs: -1})
					if err != nil || resp.MemberEpoch != LeaveGroupStaticMemberEpoch {
						t.Fatalf("static leave: %+v %v", resp, err)
					}
					s.owned = Partitions{}
					others := []*client{c1, c2}
					owned := map[string]Partitions{"c1": c1.owned, "c2": c2.owned}

					// Away for most of the session timeout: nothing moves.
					for now < lastHeartbeat+int64(g.cfg.SessionTimeoutMs)-2000 {
						for _, i := range rng.Perm(2) {
							beat(others[i])
						}
						if g.GroupEpoch() != epoch || g.State() != GroupReconciling {
							t.Fatalf("at %d, static member away: group epoch %d state %s, want %d Reconciling", now, g.GroupEpoch(), g.State(), epoch)
						}
						for _, c := range others {
							if !c.owned.Equal(owned[c.id]) || c.wanted != nil && !c.wanted.Equal(owned[c.id]) {
								t.Fatalf("at %d, %s's partitions moved: owns %v, told %v, had %v", now, c.id, c.owned, c.wanted, owned[c.id])
							}
						}
						eachPartition(held, func(tp assignor.TopicPartition) {
							if o := g.Owner(tp); o != s.id {
								t.Fatalf("%s owned by %q while its static member is away", tp, o)
							}
						})
					}

					if returns {
						// A new consumer process with the same instance id.
						back := &client{id: "s2", topics: fb}
						if err := back.heartbeatAs(g, "i-s", now, rng); err != nil {
							t.Fatal(err)
						}
						if back.epoch != epoch || !back.wanted.Equal(held) || g.GroupEpoch() != epoch {
							t.Fatalf("rejoin: epoch %d assignment %v (group epoch %d), want %d and %v", back.epoch, back.wanted, g.GroupEpoch(), epoch, held)
						}
						converge([]*client{c1, c2, back})
						if g.GroupEpoch() != epoch || !c1.owned.Equal(owned["c1"]) || !c2.owned.Equal(owned["c2"]) {
							t.Fatalf("the takeover rebalanced: group epoch %d, was %d", g.GroupEpoch(), epoch)
						}
						return
					}
					// Nobody comes back: the session timeout ends it.
					for g.GroupEpoch() == epoch {
						if now > lastHeartbeat+int64(g.cfg.SessionTimeoutMs)+5000 {
							t.Fatalf("departed static member still there at %d", now)
						}
						beat(others[rng.IntN(2)])
					}
					if _, ok := g.members[s.id]; ok || g.GroupEpoch() != epoch+1 {
						t.Fatalf("departed static member not removed, or removed by other means (group epoch %d, was %d)", g.GroupEpoch(), epoch)
					}
					converge(others)
				})
			}
		}
	}
}
