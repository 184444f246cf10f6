package assignor

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/loglab/loglab/internal/datadriven"
)

// TestAbstractStickyAssignor replays testdata/sticky_abstract.txt, the
// cases of Kafka's AbstractStickyAssignorTest. Each command runs against
// both subclasses, sticky and cooperative-sticky, as JUnit runs every case
// for both; their outputs are printed once when they agree, and under each
// assignor's name when they differ.
//
//	topics NAME=PARTITIONS ...    the cluster's topics (replacing them all)
//	subscribe ID topics=a,b       subscription(topics): nothing owned, no generation
//	member ID topics= [owned=t/0,...] [generation=1]   buildSubscriptionV2Above
//	rejoin ID... [topics=]        each rejoins owning what the last assignment
//	                              gave it, in generation 1 (new topics if given)
//	resubscribe ID topics=        the subscription changed in place, owned kept
//	leave ID...                   the member is gone from the group
//	assign                        assignPartitions: the assignment, the path the
//	                              sticky algorithm took (constrained, with
//	                              partitionsTransferringOwnership, or general)
//	verify                        verifyValidityAndBalance (cooperative: after
//	                              the follow-up rebalances its revocations need)
//	is-sticky                     isSticky: no two members swapped partitions
//
// Not ported (see the package's other tests for what replaces them):
// testMemberData (subscription serialisation; a Member carries Owned and
// Generation directly); the performance tests
// testLargeAssignmentAndGroupWithUniformSubscription,
// testLargeAssignmentAndGroupWithNonEqualSubscription,
// testAssignmentAndGroupWithNonEqualSubscriptionNotTimeout and
// testLargeAssignmentWithMultipleConsumersLeavingAndRandomSubscription (a
// million partitions, a timeout; the labs run groups of a handful of
// members); testRackAwareAssignmentWithUniformSubscription and
// testRackAwareAssignmentWithNonEqualSubscription (rack-aware assignment
// needs replica racks, which Topics does not carry). Kafka runs most cases
// under several RackConfigs; only the rack-less one applies.
func TestAbstractStickyAssignor(t *testing.T) {
	datadriven.Run(t, "testdata/sticky_abstract.txt", func(t *testing.T) datadriven.Handler {
		runs := []*ddSticky{{h: newStickyHarness(t, Sticky{}, Topics{})}, {h: newStickyHarness(t, CooperativeSticky{}, Topics{})}}
		return func(t *testing.T, c *datadriven.Cmd) string {
			// Read the arguments once: both runs take the same.
			args := ddStickyArgs{words: c.Words(), topics: c.List("topics"), owned: ddTPs(t, c.List("owned")),
				generation: int32(c.Int(t, "generation", generationID)), pairs: c.Pairs()}
			outs := make([]string, len(runs))
			for i, r := range runs {
				outs[i] = r.run(t, c, args)
			}
			if outs[0] == outs[1] {
				return outs[0]
			}
			var b strings.Builder
			for i, r := range runs {
				fmt.Fprintf(&b, "%s:\n", r.h.assignor.Name())
				for _, l := range strings.Split(outs[i], "\n") {
					b.WriteString("  " + l + "\n")
				}
			}
			return b.String()
		}
	})
}

type ddStickyArgs struct {
	words      []string
	topics     []string
	owned      []TopicPartition
	generation int32
	pairs      [][2]string
}

type ddSticky struct {
	h   *stickyHarness
	got Assignment // what the last assign or verify gave
}

func (r *ddSticky) run(t *testing.T, c *datadriven.Cmd, a ddStickyArgs) string {
	h := r.h
	one := func() string {
		if len(a.words) != 1 {
			t.Fatalf("%s: %s takes one member id", c.Pos, c.Name)
		}
		return a.words[0]
	}
	switch c.Name {
	case "topics":
		h.topics = Topics{}
		for _, p := range a.pairs {
			n, err := strconv.Atoi(p[1])
			if err != nil {
				t.Fatalf("%s: %s=%s: %v", c.Pos, p[0], p[1], err)
			}
			h.topics[p[0]] = int32(n)
		}
		return ""
	case "subscribe":
		h.sub(one(), a.topics...)
		return ""
	case "member":
		h.put(one(), a.topics, a.owned, a.generation)
		return ""
	case "rejoin":
		for _, id := range a.words {
			m, ok := h.members[id]
			if !ok {
				t.Fatalf("%s: no member %s", c.Pos, id)
			}
			topics := m.Topics
			if a.topics != nil {
				topics = a.topics
			}
			h.put(id, topics, r.got[id], generationID)
		}
		return ""
	case "resubscribe":
		m := h.members[one()]
		m.Topics = a.topics
		h.members[m.ID] = m
		return ""
	case "leave":
		for _, id := range a.words {
			delete(h.members, id)
		}
		return ""
	case "assign":
		r.got = h.assign()
		path := "general path"
		if tr := h.last.transferring; tr != nil {
			var ts []string
			for _, tp := range slices.SortedFunc(func(yield func(TopicPartition) bool) {
				for tp := range tr {
					if !yield(tp) {
						return
					}
				}
			}, Compare) {
				ts = append(ts, fmt.Sprintf("%s/%d->%s", tp.Topic, tp.Partition, tr[tp]))
			}
			if len(ts) == 0 {
				ts = []string{"none"}
			}
			path = "constrained path, transferring " + strings.Join(ts, " ")
		}
		return ddAssignment(r.got) + "\n" + path
	case "verify":
		before, failed := r.got, t.Failed()
		r.got = h.verify(r.got)
		out := "valid"
		if !failed && t.Failed() {
			out = "invalid (the errors above say why)"
		}
		if ddAssignment(before) != ddAssignment(r.got) {
			out = "after the follow-up rebalances for revoked partitions:\n" + ddAssignment(r.got) + "\nvalid"
		}
		return out
	case "is-sticky":
		switch {
		case h.last.moves == nil:
			return "no movements recorded (constrained path)"
		case h.last.moves.isSticky():
			return "sticky"
		default:
			return "not sticky: two members swapped partitions of one topic"
		}
	}
	t.Fatalf("%s: unknown command %q", c.Pos, c.Name)
	return ""
}

func ddMembers(a Assignment) []string {
	ids := make([]string, 0, len(a))
	for id := range a {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// ddAssignment prints each member's partitions grouped by topic with runs
// collapsed (t/0-2,5), its count, and whether the whole is fully balanced
// (sizes differ by at most one).
func ddAssignment(a Assignment) string {
	var lines []string
	for _, id := range ddMembers(a) {
		tps := slices.Clone(a[id])
		slices.SortFunc(tps, Compare)
		var parts []string
		for i := 0; i < len(tps); {
			topic := tps[i].Topic
			var runs []string
			for i < len(tps) && tps[i].Topic == topic {
				j := i
				for j+1 < len(tps) && tps[j+1].Topic == topic && tps[j+1].Partition == tps[j].Partition+1 {
					j++
				}
				if j > i {
					runs = append(runs, fmt.Sprintf("%d-%d", tps[i].Partition, tps[j].Partition))
				} else {
					runs = append(runs, fmt.Sprint(tps[i].Partition))
				}
				i = j + 1
			}
			parts = append(parts, topic+"/"+strings.Join(runs, ","))
		}
		if len(parts) == 0 {
			parts = []string{"-"}
		}
		lines = append(lines, fmt.Sprintf("%s (%d): %s", id, len(tps), strings.Join(parts, " ")))
	}
	if isFullyBalanced(a) {
		lines = append(lines, "fully balanced")
	} else {
		lines = append(lines, "not fully balanced")
	}
	return strings.Join(lines, "\n")
}

func ddTPs(t *testing.T, ss []string) []TopicPartition {
	var out []TopicPartition
	for _, s := range ss {
		topic, p, ok := strings.Cut(s, "/")
		n, err := strconv.Atoi(p)
		if !ok || err != nil {
			t.Fatalf("partition %q: want topic/N", s)
		}
		out = append(out, TopicPartition{topic, int32(n)})
	}
	return out
}
