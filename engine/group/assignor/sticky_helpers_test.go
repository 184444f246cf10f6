package assignor

import (
	"fmt"
	"slices"
	"testing"
)

// generationID is the generation Kafka's sticky tests rejoin in
// (AbstractStickyAssignorTest.generationId).
const generationID = 1

// stickyHarness plays AbstractStickyAssignorTest's part: it holds the
// group's subscriptions between rounds and checks assignments the way
// Kafka's test does, for either sticky assignor.
type stickyHarness struct {
	t        *testing.T
	assignor Assignor
	coop     bool
	topics   Topics
	members  map[string]Member
	last     *stickyResult
}

func newStickyHarness(t *testing.T, a Assignor, topics Topics) *stickyHarness {
	_, coop := a.(CooperativeSticky)
	return &stickyHarness{t: t, assignor: a, coop: coop, topics: topics, members: map[string]Member{}}
}

// sub is Kafka's subscription(topics, i): nothing owned, no generation.
func (h *stickyHarness) sub(id string, topics ...string) {
	h.put(id, topics, nil, noGeneration)
}

// put is buildSubscriptionV2Above(topics, owned, generation).
func (h *stickyHarness) put(id string, topics []string, owned []TopicPartition, generation int32) {
	h.members[id] = Member{ID: id, Topics: topics, Owned: owned, Generation: generation}
}

// rejoin has each named member rejoin owning what a gave it, in
// generationID, as Kafka's tests do between rounds.
func (h *stickyHarness) rejoin(a Assignment, ids ...string) {
	for _, id := range ids {
		m := h.members[id]
		h.put(id, m.Topics, a[id], generationID)
	}
}

func (h *stickyHarness) memberList() []Member {
	ids := make([]string, 0, len(h.members))
	for id := range h.members {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	ms := make([]Member, len(ids))
	for i, id := range ids {
		ms[i] = h.members[id]
	}
	return ms
}

// assign is assignor.assignPartitions.
func (h *stickyHarness) assign() Assignment {
	h.t.Helper()
	ms := h.memberList()
	a, err := h.assignor.Assign(h.topics, ms)
	if err != nil {
		h.t.Fatalf("Assign: %v", err)
	}
	if h.last, err = stickyAssign(h.topics, ms); err != nil {
		h.t.Fatalf("stickyAssign: %v", err)
	}
	return a
}

// wantMember asserts one member's partitions (in any order: Kafka's lists
// come in build order, ours sorted).
func (h *stickyHarness) wantMember(a Assignment, id string, want ...TopicPartition) {
	h.t.Helper()
	want = slices.Clone(want)
	slices.SortFunc(want, Compare)
	if got := a[id]; !slices.Equal(got, want) {
		h.t.Errorf("%s: got %v, want %v", id, got, want)
	}
}

// wantTransferring asserts partitionsTransferringOwnership after the
// constrained path.
func (h *stickyHarness) wantTransferring(want map[TopicPartition]string) {
	h.t.Helper()
	got := h.last.transferring
	if got == nil {
		h.t.Errorf("partitionsTransferringOwnership is null (general path), want %v", want)
		return
	}
	if fmt.Sprint(got) != fmt.Sprint(want) && !(len(got) == 0 && len(want) == 0) {
		h.t.Errorf("partitionsTransferringOwnership = %v, want %v", got, want)
	}
}

func (h *stickyHarness) wantNoTransferring() { h.t.Helper(); h.wantTransferring(nil) }

// wantGeneralPath is Kafka's assertNull(partitionsTransferringOwnership).
func (h *stickyHarness) wantGeneralPath() {
	h.t.Helper()
	if h.last.transferring != nil {
		h.t.Errorf("took the constrained path, want the general one")
	}
}

// wantSticky is assignor.isSticky().
func (h *stickyHarness) wantSticky() {
	h.t.Helper()
	if h.last.moves != nil && !h.last.moves.isSticky() {
		h.t.Errorf("two members swapped partitions of one topic")
	}
}

func isFullyBalanced(a Assignment) bool {
	lo, hi := -1, -1
	for _, tps := range a {
		if lo < 0 || len(tps) < lo {
			lo = len(tps)
		}
		hi = max(hi, len(tps))
	}
	return hi-lo <= 1
}

func (h *stickyHarness) wantFullyBalanced(a Assignment) {
	h.t.Helper()
	if !isFullyBalanced(a) {
		h.t.Errorf("not fully balanced: %v", a)
	}
}

// verify is verifyValidityAndBalance. For the cooperative assignor it is
// CooperativeStickyAssignorTest's override first: no partition may be
// assigned in the round its owner revokes it, and while anything is
// revoked the members rejoin with what they now own for a follow-up
// rebalance, as the cooperative protocol does. It returns the final
// assignment and leaves the members as they rejoined.
func (h *stickyHarness) verify(a Assignment) Assignment {
	h.t.Helper()
	for rebalances := 0; h.coop && h.revokes(a); rebalances++ {
		if rebalances == 4 {
			h.t.Fatalf("still revoking after 4 follow-up rebalances: %v", a)
		}
		for _, m := range h.memberList() {
			h.put(m.ID, m.Topics, a[m.ID], generationID)
		}
		a = h.assign()
	}
	verifyValidityAndBalance(h.t, h.members, a)
	return a
}

// revokes reports whether any member loses a partition, failing if one is
// given to another member in the same round.
func (h *stickyHarness) revokes(a Assignment) bool {
	h.t.Helper()
	added, revoked := map[TopicPartition]bool{}, map[TopicPartition]bool{}
	for _, m := range h.memberList() {
		for _, tp := range a[m.ID] {
			if !slices.Contains(m.Owned, tp) {
				added[tp] = true
			}
		}
		for _, tp := range m.Owned {
			if !slices.Contains(a[m.ID], tp) {
				revoked[tp] = true
			}
		}
	}
	for _, tp := range sortedKeys(added) {
		if revoked[tp] {
			h.t.Errorf("%v is assigned to a new consumer in the round its owner revokes it", tp)
		}
	}
	return len(revoked) > 0
}

func sortedKeys(m map[TopicPartition]bool) []TopicPartition {
	keys := make([]TopicPartition, 0, len(m))
	for tp := range m {
		keys = append(keys, tp)
	}
	slices.SortFunc(keys, Compare)
	return keys
}

// verifyValidityAndBalance is Kafka's check: every member is subscribed to
// what it got, no partition has two owners, and two members whose sizes
// differ by more than one share no topic (else one partition could move).
func verifyValidityAndBalance(t *testing.T, members map[string]Member, a Assignment) {
	t.Helper()
	if len(members) != len(a) {
		t.Fatalf("%d members but %d assignments: %v", len(members), len(a), a)
	}
	ids := make([]string, 0, len(a))
	for id := range a {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for i, id := range ids {
		for _, tp := range a[id] {
			if !slices.Contains(members[id].Topics, tp.Topic) {
				t.Errorf("%v is assigned to %s, which is not subscribed to %s", tp, id, tp.Topic)
			}
		}
		for _, other := range ids[i+1:] {
			for _, tp := range a[id] {
				if slices.Contains(a[other], tp) {
					t.Errorf("%s and %s are both assigned %v", id, other, tp)
				}
			}
			if d := len(a[id]) - len(a[other]); d >= -1 && d <= 1 {
				continue
			}
			for _, tp := range a[id] {
				if slices.ContainsFunc(a[other], func(o TopicPartition) bool { return o.Topic == tp.Topic }) {
					t.Errorf("a partition of %s can move between %s (%d) and %s (%d) for a better balance",
						tp.Topic, id, len(a[id]), other, len(a[other]))
					break
				}
			}
		}
	}
}

func tps(topic string, partitions ...int32) []TopicPartition {
	out := make([]TopicPartition, len(partitions))
	for i, p := range partitions {
		out[i] = TopicPartition{topic, p}
	}
	return out
}

func tp(topic string, p int32) TopicPartition { return TopicPartition{topic, p} }

// bothStickyAssignors runs a case of AbstractStickyAssignorTest for each
// of its subclasses, as JUnit does.
func bothStickyAssignors(t *testing.T, run func(t *testing.T, a Assignor)) {
	for _, a := range []Assignor{Sticky{}, CooperativeSticky{}} {
		t.Run(a.Name(), func(t *testing.T) { run(t, a) })
	}
}

// topicName and consumerName are Kafka's getTopicName/getConsumerName:
// zero-padded so names sort as numbers.
func topicName(i, max int) string    { return padded("t", i, max) }
func consumerName(i, max int) string { return padded("c", i, max) }

func padded(prefix string, i, max int) string {
	return fmt.Sprintf("%s%0*d", prefix, len(fmt.Sprint(max)), i)
}

func containsAll(s, sub []TopicPartition) bool {
	for _, p := range sub {
		if !slices.Contains(s, p) {
			return false
		}
	}
	return true
}
