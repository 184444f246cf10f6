package assignor

import (
	"fmt"
	"slices"
	"testing"
)

// utps builds one topic's partitions, as Kafka's mkTopicAssignment does.
func utps(topic string, parts ...int32) []TopicPartition {
	out := make([]TopicPartition, len(parts))
	for i, p := range parts {
		out[i] = TopicPartition{topic, p}
	}
	return out
}

// uowns concatenates topic assignments, keeping their order: the order a
// member's current assignment is walked in matters to the uniform
// assignor (Kafka's mkOrderedAssignment).
func uowns(groups ...[]TopicPartition) []TopicPartition {
	return slices.Concat(groups...)
}

// uniformCase is one Kafka test method: its metadata, members and either
// the exact assignment Kafka asserts or the error it expects.
type uniformCase struct {
	name    string // the Kafka test method this case mirrors
	topics  Topics
	members []Member
	want    Assignment // nil: only the property checks
	wantErr bool
}

// runUniformCases runs Kafka's cases; checkBalance adds Kafka's
// checkValidityAndBalance, which only the homogeneous tests assert (a
// heterogeneous group cannot always be balanced across all members).
func runUniformCases(t *testing.T, cases []uniformCase, checkBalance bool) {
	t.Helper()
	u := Uniform{TopicOrder: uniformKafkaTopicOrder(uniformKafkaTopicIDs)}
	runUniformCasesWith(t, cases, checkBalance, u.Assign)
}

// uniformForcedHeterogeneous runs the heterogeneous builder whatever the
// subscriptions, as Kafka's UniformHeterogeneousAssignmentBuilderTest
// does by handing the assignor a GroupSpec that says HETEROGENEOUS.
func uniformForcedHeterogeneous(topics Topics, members []Member) (Assignment, error) {
	if len(members) == 0 {
		return Assignment{}, nil
	}
	out, err := Uniform{}.assignHeterogeneous(topics, uniformSortedMembers(members))
	if err != nil {
		return nil, err
	}
	return out.normalize(), nil
}

func runUniformCasesWith(t *testing.T, cases []uniformCase, checkBalance bool, assign func(Topics, []Member) (Assignment, error)) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := assign(tc.topics, tc.members)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("want an error, got %v", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.want != nil {
				uniformAssertSame(t, tc.want, got)
			}
			uniformCheckValidity(t, tc.members, got)
			if checkBalance {
				uniformCheckBalanced(t, tc.members, got)
			}
		})
	}
}

func uniformAssertSame(t *testing.T, want, got Assignment) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("members: want %v, got %v", want, got)
	}
	want.normalize()
	for id, w := range want {
		g, ok := got[id]
		if !ok || !slices.Equal(w, g) {
			t.Errorf("member %s: want %v, got %v", id, w, g)
		}
	}
}

// uniformCheckValidity is the validity half of Kafka's checkValidityAndBalance:
// every member is subscribed to the topics of its partitions and no
// partition has two owners.
func uniformCheckValidity(t *testing.T, members []Member, got Assignment) {
	t.Helper()
	owner := map[TopicPartition]string{}
	for _, m := range members {
		subscribed := uniformTopicSet(m.Topics)
		for _, tp := range got[m.ID] {
			if !subscribed[tp.Topic] {
				t.Errorf("%v is assigned to %s, which is not subscribed to %s", tp, m.ID, tp.Topic)
			}
			if o, dup := owner[tp]; dup {
				t.Errorf("%v is assigned to both %s and %s", tp, o, m.ID)
			}
			owner[tp] = m.ID
		}
	}
}

// uniformCheckBalanced is the balance half of Kafka's checkValidityAndBalance:
// no two members' partition counts differ by more than one.
func uniformCheckBalanced(t *testing.T, members []Member, got Assignment) {
	t.Helper()
	ids := sortedMemberIDs(members)
	for i, a := range ids {
		for _, b := range ids[i+1:] {
			if d := len(got[a]) - len(got[b]); d > 1 || d < -1 {
				t.Errorf("%s has %d partitions and %s %d: more than one apart", a, len(got[a]), b, len(got[b]))
			}
		}
	}
}

func umember(id string, topics []string, owned ...[]TopicPartition) Member {
	return Member{ID: id, Topics: topics, Owned: uowns(owned...), Generation: -1}
}

func utopicList(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i+1)
	}
	return out
}
