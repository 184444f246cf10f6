package consumer

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/group/assignor"
	"github.com/loglab/loglab/internal/datadriven"
)

// TestStaticMembership replays testdata/static.txt: GroupMetadataManagerTest's
// static member cases for the consumer protocol (KIP-848), each driving one
// group "fooup" over topics foo (6 partitions) and bar (3) with commands
// named after the request and Kafka's test helpers. After a heartbeat or an
// expiry it prints the answer and the group's epochs and state.
//
//	seed epoch=N                   ConsumerGroupBuilder.withAssignmentEpoch/epoch
//	topics NAME=N ...              the topics, before anything else (default foo=6 bar=3)
//	member ID [instance=] epoch= [previous=epoch-1] topics= assigned= [rebalance-timeout=5000]
//	                               a Stable member owning its target
//	next-deadline                  when the group's next timer is due
//	owner PARTS                    who owns each partition
//	static-member ID instance= epoch= topics= assigned=   a Stable member
//	                               owning its target (previous epoch epoch-1,
//	                               rebalance timeout 5s, heartbeated at 0)
//	prepare-assignment ID=PARTS ... MockPartitionAssignor.prepareGroupAssignment
//	join ID [instance=] topics= [now=]      ConsumerGroupHeartbeat at epoch 0,
//	                               rebalance timeout 5s, nothing owned
//	leave ID [instance=] epoch=-1|-2 [now=] ConsumerGroupHeartbeat leaving
//	heartbeat ID [instance=] epoch= [rebalance-timeout=-1] [topics=] [owned=] [now=]
//	expire now=                    the session and rebalance timers due by now
//	members                        each member as id/instance@epoch/previous:state
//	                               with its assignment, and who owns what
//
// Partitions are written foo/0-2,5,bar/0 (a topic, then partitions and
// ranges); "-" is none.
func TestStaticMembership(t *testing.T) {
	datadriven.Run(t, "testdata/static.txt", newDDCase)
}

// TestHeartbeat replays testdata/heartbeat.txt, GroupMetadataManagerTest's
// cases for dynamic members: reconciliation, epoch validation, the session
// and rebalance timeouts, leaving, request validation.
func TestHeartbeat(t *testing.T) {
	datadriven.Run(t, "testdata/heartbeat.txt", newDDCase)
}

func newDDCase(t *testing.T) datadriven.Handler {
	fa := fixedAssignor{out: map[string]Partitions{}}
	topics := assignor.Topics{"foo": 6, "bar": 3}
	var g *Group
	return func(t *testing.T, c *datadriven.Cmd) string {
		if c.Name == "topics" {
			if g != nil {
				t.Fatalf("%s: topics after the group was made", c.Pos)
			}
			topics = assignor.Topics{}
			for _, p := range c.Pairs() {
				n, err := strconv.Atoi(p[1])
				if err != nil {
					t.Fatalf("%s: %v", c.Pos, err)
				}
				topics[p[0]] = int32(n)
			}
			return ""
		}
		if g == nil {
			g = NewGroup("fooup", fa, topics, DefaultConfig())
		}
		id := func() string {
			if v := c.Str("member", "\x00"); v != "\x00" {
				return v // member= names an id a bare word cannot: ""
			}
			w := c.Words()
			if len(w) != 1 {
				t.Fatalf("%s: %s takes one member id", c.Pos, c.Name)
			}
			return w[0]
		}
		var req *HeartbeatRequest
		switch c.Name {
		case "seed":
			e := int32(c.Int(t, "epoch", 0))
			g.groupEpoch, g.assignmentEpoch = e, e
			return ""
		case "static-member":
			m := staticMemberAt(id(), c.Str("instance", ""), int32(c.Int(t, "epoch", 0)), c.List("topics"),
				ddParts(t, c.Str("assigned", "-")))
			seed(t, g, g.groupEpoch, m)
			return ""
		case "member":
			e := int32(c.Int(t, "epoch", 0))
			seed(t, g, g.groupEpoch, Member{ID: id(), InstanceID: c.Str("instance", ""), State: Stable, MemberEpoch: e,
				PreviousMemberEpoch: int32(c.Int(t, "previous", int64(e)-1)), SubscribedTopics: c.List("topics"),
				RebalanceTimeoutMs: int32(c.Int(t, "rebalance-timeout", 5000)), Assigned: ddParts(t, c.Str("assigned", "-"))})
			return ""
		case "owner":
			tp := ddParts(t, c.Words()[0])
			var out []string
			eachPartition(tp, func(p assignor.TopicPartition) {
				o := g.Owner(p)
				if o == "" {
					o = "nobody"
				}
				out = append(out, fmt.Sprintf("%s owned by %s", p, o))
			})
			return strings.Join(out, "\n")
		case "next-deadline":
			at, ok := g.NextDeadline()
			if !ok {
				return "no deadline"
			}
			return fmt.Sprintf("next deadline at %d", at)
		case "prepare-assignment":
			for _, p := range c.Pairs() {
				fa.out[p[0]] = ddParts(t, p[1])
			}
			return ""
		case "join":
			req = join(id(), c.Str("instance", ""), c.List("topics")...)
		case "leave":
			req = leaveStatic(id(), c.Str("instance", ""), int32(c.Int(t, "epoch", int64(LeaveGroupStaticMemberEpoch))))
		case "heartbeat":
			req = &HeartbeatRequest{MemberID: id(), InstanceID: c.Str("instance", ""), MemberEpoch: int32(c.Int(t, "epoch", 0)),
				RebalanceTimeoutMs: int32(c.Int(t, "rebalance-timeout", -1)), SubscribedTopicNames: c.List("topics")}
			if c.Has("owned") {
				req.OwnedTopicPartitions = ddParts(t, c.Str("owned", "-"))
			}
		case "expire":
			var ids []string
			for _, e := range g.Expire(c.Int(t, "now", 0)) {
				ids = append(ids, e.MemberID)
			}
			if len(ids) == 0 {
				ids = []string{"none"}
			}
			return "expired: " + strings.Join(ids, " ") + "\n" + ddGroup(g)
		case "members":
			var out []string
			for _, m := range g.Members() {
				line := fmt.Sprintf("%s: %s", memberKey(m), ddPartsString(m.Assigned))
				if !m.PendingRevocation.Empty() {
					line += " revoking " + ddPartsString(m.PendingRevocation)
				}
				out = append(out, line)
				// The coordinator's ownership follows the members: what a
				// member holds is owned by it, nobody else's.
				eachPartition(m.Assigned, func(tp assignor.TopicPartition) {
					if o := g.Owner(tp); o != m.ID {
						out = append(out, fmt.Sprintf("  but %s is owned by %q", tp, o))
					}
				})
			}
			if len(out) == 0 {
				return "no members"
			}
			return strings.Join(out, "\n")
		default:
			t.Fatalf("%s: unknown command %q", c.Pos, c.Name)
		}
		resp, err := g.Heartbeat(c.Int(t, "now", 0), *req)
		if err != nil {
			return "error: " + err.Error() + "\n" + ddGroup(g)
		}
		s := fmt.Sprintf("-> member=%s epoch=%d interval=%d", resp.MemberID, resp.MemberEpoch, resp.HeartbeatIntervalMs)
		if resp.Assignment == nil {
			s += " assignment not sent"
		} else {
			s += " assignment=" + ddPartsString(resp.Assignment)
		}
		if resp.ReplacedMemberID != "" {
			s += " replaced=" + resp.ReplacedMemberID
		}
		if m, ok := g.members[resp.MemberID]; ok {
			s += fmt.Sprintf("\nmember %s %s", m.ID, m.State)
			if !m.PendingRevocation.Empty() {
				s += " revoking " + ddPartsString(m.PendingRevocation)
			}
		}
		return s + "\n" + ddGroup(g)
	}
}

func ddGroup(g *Group) string {
	return fmt.Sprintf("group epoch=%d assignment-epoch=%d %s", g.GroupEpoch(), g.AssignmentEpoch(), g.State())
}

// ddParts parses foo/0-2,5,bar/0; "-" is the empty set.
func ddParts(t *testing.T, s string) Partitions {
	p := Partitions{}
	if s == "-" || s == "" {
		return p
	}
	topic := ""
	for _, tok := range strings.Split(s, ",") {
		if tp, rest, ok := strings.Cut(tok, "/"); ok {
			topic, tok = tp, rest
		}
		lo, hi, isRange := strings.Cut(tok, "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || topic == "" {
			t.Fatalf("partitions %q: want topic/0-2,5,other/0", s)
		}
		for n := a; n <= b; n++ {
			p[topic] = append(p[topic], int32(n))
		}
	}
	return p.normalized()
}

func ddPartsString(p Partitions) string {
	n := p.normalized()
	var parts []string
	for _, topic := range n.Topics() {
		ps := n[topic]
		var runs []string
		for i := 0; i < len(ps); {
			j := i
			for j+1 < len(ps) && ps[j+1] == ps[j]+1 {
				j++
			}
			if j > i {
				runs = append(runs, fmt.Sprintf("%d-%d", ps[i], ps[j]))
			} else {
				runs = append(runs, fmt.Sprint(ps[i]))
			}
			i = j + 1
		}
		parts = append(parts, topic+"/"+strings.Join(runs, ","))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ",")
}
