package consumer

import (
	"errors"
	"reflect"
	"testing"

	"github.com/loglab/loglab/engine/group/assignor"
)

// tps builds Partitions from (topic, partitions...) groups:
// tps("topic1", 1, 2, "topic2", 4).
func tps(args ...any) Partitions {
	p := Partitions{}
	var topic string
	for _, a := range args {
		switch v := a.(type) {
		case string:
			topic = v
			p[topic] = p[topic][:0:0]
		case int:
			p[topic] = append(p[topic], int32(v))
		}
	}
	return p
}

func epochIs(e int32) func(string, int32) int32 { return func(string, int32) int32 { return e } }

var twoTopics = assignor.Topics{"topic1": 10, "topic2": 10}

// member builds the starting member of a CurrentAssignmentBuilderTest case.
func member(state MemberState, epoch, prev int32, subs []string, assigned, pending Partitions) Member {
	if pending == nil {
		pending = Partitions{}
	}
	return Member{ID: "member", State: state, MemberEpoch: epoch, PreviousMemberEpoch: prev,
		SubscribedTopics: subs, Assigned: assigned, PendingRevocation: pending}
}

var both = []string{"topic1", "topic2"}

// TestCurrentAssignmentBuilder ports the cases of Kafka's
// CurrentAssignmentBuilderTest, each named after its Kafka method, with
// Kafka's expected states, epochs and assignments.
func TestCurrentAssignmentBuilder(t *testing.T) {
	tests := []struct {
		name    string
		m       Member
		r       reconciliation
		want    Member // ignored when wantErr
		wantErr error
	}{
		{"testStableToStable",
			member(Stable, 10, 10, both, tps("topic1", 1, 2, 3, "topic2", 4, 5, 6), nil),
			reconciliation{targetEpoch: 11, target: tps("topic1", 1, 2, 3, "topic2", 4, 5, 6), partitionEpoch: epochIs(10)},
			member(Stable, 11, 10, both, tps("topic1", 1, 2, 3, "topic2", 4, 5, 6), nil), nil},
		{"testStableToStableWithNewPartitions",
			member(Stable, 10, 10, both, tps("topic1", 1, 2, 3, "topic2", 4, 5, 6), nil),
			reconciliation{targetEpoch: 11, target: tps("topic1", 1, 2, 3, 4, "topic2", 4, 5, 6, 7), partitionEpoch: epochIs(-1)},
			member(Stable, 11, 10, both, tps("topic1", 1, 2, 3, 4, "topic2", 4, 5, 6, 7), nil), nil},
		{"testStableToUnrevokedPartitions",
			member(Stable, 10, 10, both, tps("topic1", 1, 2, 3, "topic2", 4, 5, 6), nil),
			reconciliation{targetEpoch: 11, target: tps("topic1", 2, 3, 4, "topic2", 5, 6, 7), partitionEpoch: epochIs(-1)},
			member(UnrevokedPartitions, 10, 10, both, tps("topic1", 2, 3, "topic2", 5, 6), tps("topic1", 1, "topic2", 4)), nil},
		{"testStableToUnreleasedPartitions",
			member(Stable, 10, 10, both, tps("topic1", 1, 2, 3, "topic2", 4, 5, 6), nil),
			reconciliation{targetEpoch: 11, target: tps("topic1", 1, 2, 3, 4, "topic2", 4, 5, 6, 7), partitionEpoch: epochIs(10)},
			member(UnreleasedPartitions, 11, 10, both, tps("topic1", 1, 2, 3, "topic2", 4, 5, 6), nil), nil},
		{"testStableToUnreleasedPartitionsWithOwnedPartitionsNotHavingRevokedPartitions",
			member(Stable, 10, 10, both, tps("topic1", 1, 2, 3, "topic2", 4, 5, 6), nil),
			reconciliation{targetEpoch: 11, target: tps("topic1", 1, 2, 3, "topic2", 4, 5, 7),
				partitionEpoch: func(t string, _ int32) int32 {
					if t == "topic2" {
						return 10
					}
					return -1
				}, owned: Partitions{}},
			member(UnreleasedPartitions, 11, 10, both, tps("topic1", 1, 2, 3, "topic2", 4, 5), nil), nil},
		{"testUnrevokedPartitionsToStable",
			member(UnrevokedPartitions, 10, 10, both, tps("topic1", 2, 3, "topic2", 5, 6), tps("topic1", 1, "topic2", 4)),
			reconciliation{targetEpoch: 11, target: tps("topic1", 2, 3, "topic2", 5, 6), partitionEpoch: epochIs(-1),
				owned: tps("topic1", 2, 3, "topic2", 5, 6)},
			member(Stable, 11, 10, both, tps("topic1", 2, 3, "topic2", 5, 6), nil), nil},
		{"testUnrevokedPartitionsToUnrevokedPartitions",
			member(UnrevokedPartitions, 10, 10, both, tps("topic1", 2, 3, "topic2", 5, 6), tps("topic1", 1, "topic2", 4)),
			reconciliation{targetEpoch: 12, target: tps("topic1", 3, "topic2", 6), partitionEpoch: epochIs(-1),
				owned: tps("topic1", 2, 3, "topic2", 5, 6)},
			member(UnrevokedPartitions, 10, 10, both, tps("topic1", 3, "topic2", 6), tps("topic1", 2, "topic2", 5)), nil},
		{"testUnrevokedPartitionsToUnreleasedPartitions",
			member(UnrevokedPartitions, 11, 10, both, tps("topic1", 2, 3, "topic2", 5, 6), nil),
			reconciliation{targetEpoch: 11, target: tps("topic1", 2, 3, 4, "topic2", 5, 6, 7), partitionEpoch: epochIs(10),
				owned: tps("topic1", 2, 3, "topic2", 5, 6)},
			member(UnreleasedPartitions, 11, 11, both, tps("topic1", 2, 3, "topic2", 5, 6), nil), nil},
		{"testUnrevokedPartitionsToStableWithReturnedPartitionsPendingRevocation",
			member(UnrevokedPartitions, 10, 10, both, tps("topic1", 2, 3, "topic2", 5, 6), tps("topic1", 4)),
			reconciliation{targetEpoch: 12, target: tps("topic1", 2, 3, 4, "topic2", 5, 6, 7),
				partitionEpoch: func(t string, p int32) int32 {
					if (t == "topic1" && p >= 2 && p <= 4) || (t == "topic2" && (p == 5 || p == 6)) {
						return 10
					}
					return -1
				}, owned: tps("topic1", 2, 3, "topic2", 5, 6)},
			member(Stable, 12, 10, both, tps("topic1", 2, 3, 4, "topic2", 5, 6, 7), nil), nil},
		{"testUnreleasedPartitionsToStable",
			member(UnreleasedPartitions, 11, 11, both, tps("topic1", 2, 3, "topic2", 5, 6), nil),
			reconciliation{targetEpoch: 12, target: tps("topic1", 2, 3, "topic2", 5, 6), partitionEpoch: epochIs(10)},
			member(Stable, 12, 11, both, tps("topic1", 2, 3, "topic2", 5, 6), nil), nil},
		{"testUnreleasedPartitionsToStableWithNewPartitions",
			member(UnreleasedPartitions, 11, 11, both, tps("topic1", 2, 3, "topic2", 5, 6), nil),
			reconciliation{targetEpoch: 11, target: tps("topic1", 2, 3, 4, "topic2", 5, 6, 7), partitionEpoch: epochIs(-1)},
			member(Stable, 11, 11, both, tps("topic1", 2, 3, 4, "topic2", 5, 6, 7), nil), nil},
		{"testUnreleasedPartitionsToUnreleasedPartitions",
			member(UnreleasedPartitions, 11, 11, both, tps("topic1", 2, 3, "topic2", 5, 6), nil),
			reconciliation{targetEpoch: 11, target: tps("topic1", 2, 3, 4, "topic2", 5, 6, 7), partitionEpoch: epochIs(10)},
			member(UnreleasedPartitions, 11, 11, both, tps("topic1", 2, 3, "topic2", 5, 6), nil), nil},
		{"testUnreleasedPartitionsToUnrevokedPartitions",
			member(UnreleasedPartitions, 11, 11, both, tps("topic1", 2, 3, "topic2", 5, 6), nil),
			reconciliation{targetEpoch: 12, target: tps("topic1", 3, "topic2", 6), partitionEpoch: epochIs(10)},
			member(UnrevokedPartitions, 11, 11, both, tps("topic1", 3, "topic2", 6), tps("topic1", 2, "topic2", 5)), nil},
		{"testUnknownState/fenced",
			member(Unknown, 11, 11, both, tps("topic1", 3, "topic2", 6), tps("topic1", 2, "topic2", 5)),
			reconciliation{targetEpoch: 12, target: tps("topic1", 3, "topic2", 6), partitionEpoch: epochIs(10)},
			Member{}, ErrFencedMemberEpoch},
		{"testUnknownState/rejoins_with_no_owned_partitions",
			member(Unknown, 11, 11, both, tps("topic1", 3, "topic2", 6), tps("topic1", 2, "topic2", 5)),
			reconciliation{targetEpoch: 12, target: tps("topic1", 3, "topic2", 6), partitionEpoch: epochIs(11), owned: Partitions{}},
			member(Stable, 12, 11, both, tps("topic1", 3, "topic2", 6), nil), nil},
	}
	// Kafka's two @CsvSource-parameterized subscription cases.
	for _, c := range []struct {
		memberEpoch, targetEpoch, wantEpoch int32
		changed                             bool
	}{{10, 11, 11, false}, {10, 11, 11, true}, {10, 10, 10, true}} {
		tests = append(tests, struct {
			name    string
			m       Member
			r       reconciliation
			want    Member
			wantErr error
		}{"testStableToStableWithAssignmentTopicsNoLongerInSubscription",
			member(Stable, c.memberEpoch, c.memberEpoch-1, []string{"topic2"}, tps("topic1", 1, 2, 3, "topic2", 4, 5, 6), nil),
			reconciliation{targetEpoch: c.targetEpoch, target: tps("topic1", 1, 2, 3, "topic2", 4, 5, 6), partitionEpoch: epochIs(-1),
				owned: tps("topic2", 4, 5, 6), subscriptionChanged: c.changed},
			member(Stable, c.wantEpoch, c.memberEpoch, []string{"topic2"}, tps("topic2", 4, 5, 6), nil), nil})
	}
	for _, c := range []struct {
		memberEpoch, targetEpoch, wantEpoch int32
		changed                             bool
	}{{10, 11, 10, false}, {10, 11, 10, true}, {10, 10, 10, true}} {
		tests = append(tests, struct {
			name    string
			m       Member
			r       reconciliation
			want    Member
			wantErr error
		}{"testStableToUnrevokedPartitionsWithAssignmentTopicsNoLongerInSubscription",
			member(Stable, c.memberEpoch, c.memberEpoch-1, []string{"topic2"}, tps("topic1", 1, 2, 3, "topic2", 4, 5, 6), nil),
			reconciliation{targetEpoch: c.targetEpoch, target: tps("topic1", 1, 2, 3, "topic2", 4, 5, 6), partitionEpoch: epochIs(-1),
				owned: tps("topic1", 1, 2, 3, "topic2", 4, 5, 6), subscriptionChanged: c.changed},
			member(UnrevokedPartitions, c.wantEpoch, c.memberEpoch, []string{"topic2"}, tps("topic2", 4, 5, 6), tps("topic1", 1, 2, 3)), nil})
	}
	tests = append(tests, struct {
		name    string
		m       Member
		r       reconciliation
		want    Member
		wantErr error
	}{"testRemainsInUnrevokedPartitionsWithAssignmentTopicsNoLongerInSubscription",
		member(UnrevokedPartitions, 10, 10, []string{"topic2"}, tps("topic1", 2, 3, "topic2", 5, 6), tps("topic1", 1, "topic2", 4)),
		reconciliation{targetEpoch: 12, target: tps("topic1", 1, 3, 4, "topic2", 6, 7), partitionEpoch: epochIs(-1),
			owned: tps("topic1", 1, 2, 3, "topic2", 4, 5, 6), subscriptionChanged: true},
		member(UnrevokedPartitions, 10, 10, []string{"topic2"}, tps("topic2", 5, 6), tps("topic1", 1, 2, 3, "topic2", 4)), nil})

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.r.topics = twoTopics
			got, err := reconcile(tt.m, tt.r)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			assertMember(t, got, tt.want)
		})
	}
}

// TestRemainsInUnrevokedPartitions is Kafka's testRemainsInUnrevokedPartitions:
// the member stays as it is while its heartbeat does not say, or says it
// still owns, a partition it must revoke.
func TestRemainsInUnrevokedPartitions(t *testing.T) {
	m := member(UnrevokedPartitions, 10, 10, both, tps("topic1", 2, 3, "topic2", 5, 6), tps("topic1", 1, "topic2", 4))
	for _, owned := range []Partitions{nil, tps("topic1", 1, 2, 3, "topic2", 5, 6), tps("topic1", 2, 3, "topic2", 4, 5, 6)} {
		got, err := reconcile(m, reconciliation{targetEpoch: 12, target: tps("topic1", 3, "topic2", 6),
			topics: twoTopics, partitionEpoch: epochIs(-1), owned: owned})
		if err != nil {
			t.Fatal(err)
		}
		assertMember(t, got, m)
	}
}

func assertMember(t *testing.T, got, want Member) {
	t.Helper()
	if got.State != want.State || got.MemberEpoch != want.MemberEpoch || got.PreviousMemberEpoch != want.PreviousMemberEpoch ||
		!got.Assigned.Equal(want.Assigned) || !got.PendingRevocation.Equal(want.PendingRevocation) ||
		!reflect.DeepEqual(got.SubscribedTopics, want.SubscribedTopics) {
		t.Errorf("got  %s epoch=%d prev=%d assigned=%v pending=%v\nwant %s epoch=%d prev=%d assigned=%v pending=%v",
			got.State, got.MemberEpoch, got.PreviousMemberEpoch, got.Assigned, got.PendingRevocation,
			want.State, want.MemberEpoch, want.PreviousMemberEpoch, want.Assigned, want.PendingRevocation)
	}
}
