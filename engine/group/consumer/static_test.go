package consumer

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/loglab/loglab/engine/group/assignor"
)

// staticStep is one heartbeat (or, with req nil, one run of the timers)
// and what Kafka answers.
type staticStep struct {
	now int64
	req *HeartbeatRequest // nil: Expire(now)

	wantErr  error
	wantResp HeartbeatResponse // compared whole, Assignment nil meaning not sent
	// wantExpired: the member ids Expire fences.
	wantExpired []string
	wantEpochs  [2]int32 // group epoch, target assignment epoch after the step
	wantState   GroupState
}

// staticMemberAt is a static member, Stable at epoch with previous epoch
// epoch-1, owning assigned, heartbeated at time 0.
func staticMemberAt(id, instance string, epoch int32, topics []string, assigned Partitions) Member {
	return Member{ID: id, InstanceID: instance, State: Stable, MemberEpoch: epoch, PreviousMemberEpoch: epoch - 1,
		SubscribedTopics: sortedTopics(topics), RebalanceTimeoutMs: 5000, Assigned: assigned,
		sessionDeadlineMs: 45000}
}

func join(id, instance string, topics ...string) *HeartbeatRequest {
	return &HeartbeatRequest{MemberID: id, InstanceID: instance, MemberEpoch: JoinGroupMemberEpoch,
		RebalanceTimeoutMs: 5000, SubscribedTopicNames: topics, OwnedTopicPartitions: Partitions{}}
}

func leaveStatic(id, instance string, epoch int32) *HeartbeatRequest {
	return &HeartbeatRequest{MemberID: id, InstanceID: instance, MemberEpoch: epoch, RebalanceTimeoutMs: -1}
}

// TestStaticMembership ports GroupMetadataManagerTest's static member
// cases for the consumer protocol, one row per Kafka test of that name.
// wantMembers lists, after the last step, each member as
// "id/instance@epoch:state" in id order, and its assignment.
func TestStaticMembership(t *testing.T) {
	fb := []string{"foo", "bar"}
	twoStatic := func(g *Group) {
		seed(t, g, 10,
			staticMemberAt("m1", "i1", 10, fb, tps("foo", 0, 1, 2, "bar", 0, 1)),
			staticMemberAt("m2", "i2", 10, fb, tps("foo", 3, 4, 5, "bar", 2)))
	}
	oneStatic := func(g *Group) {
		seed(t, g, 10, staticMemberAt("m1", "i1", 10, fb, tps("foo", 0, 1, 2)))
	}
	for _, tt := range []struct {
		name   string
		seed   func(*Group)
		assign map[string]Partitions // the MockPartitionAssignor's prepared assignment
		steps  []staticStep
		// after the last step: member "id/instance@epoch/previous:state" -> assigned
		wantMembers map[string]Partitions
	}{
		{
			name: "testGroupEpochBumpWhenNewStaticMemberJoins",
			seed: twoStatic,
			assign: map[string]Partitions{"m1": tps("foo", 0, 1, "bar", 0), "m2": tps("foo", 2, 3, "bar", 1),
				"m3": tps("foo", 4, 5, "bar", 2)},
			steps: []staticStep{{req: join("m3", "i3", "foo", "bar"),
				wantResp:   HeartbeatResponse{MemberID: "m3", MemberEpoch: 11, HeartbeatIntervalMs: 5000, Assignment: Partitions{}},
				wantEpochs: [2]int32{11, 11}, wantState: GroupReconciling}},
			wantMembers: map[string]Partitions{
				"m1/i1@10/9:STABLE": tps("foo", 0, 1, 2, "bar", 0, 1), "m2/i2@10/9:STABLE": tps("foo", 3, 4, 5, "bar", 2),
				"m3/i3@11/0:UNRELEASED_PARTITIONS": {}},
		},
		{
			// The departed member keeps its partitions and its place; the
			// consumer that comes back under a new member id gets both,
			// at the same epoch: no rebalance.
			name: "testStaticMemberGetsBackAssignmentUponRejoin",
			seed: twoStatic,
			steps: []staticStep{
				{req: leaveStatic("m2", "i2", LeaveGroupStaticMemberEpoch),
					wantResp:   HeartbeatResponse{MemberID: "m2", MemberEpoch: -2},
					wantEpochs: [2]int32{10, 10}, wantState: GroupReconciling},
				{req: join("m2-rejoin", "i2", "foo", "bar"),
					wantResp: HeartbeatResponse{MemberID: "m2-rejoin", MemberEpoch: 10, HeartbeatIntervalMs: 5000,
						Assignment: tps("foo", 3, 4, 5, "bar", 2), ReplacedMemberID: "m2"},
					wantEpochs: [2]int32{10, 10}, wantState: GroupStable},
			},
			wantMembers: map[string]Partitions{
				"m1/i1@10/9:STABLE": tps("foo", 0, 1, 2, "bar", 0, 1), "m2-rejoin/i2@10/0:STABLE": tps("foo", 3, 4, 5, "bar", 2)},
		},
		{
			// Since KIP-1082 the client keeps its member id: the same
			// consumer leaving with -2 and joining again takes itself over.
			name: "static member rejoins with its own member id",
			seed: twoStatic,
			steps: []staticStep{
				{req: leaveStatic("m2", "i2", LeaveGroupStaticMemberEpoch),
					wantResp:   HeartbeatResponse{MemberID: "m2", MemberEpoch: -2},
					wantEpochs: [2]int32{10, 10}, wantState: GroupReconciling},
				{req: join("m2", "i2", "foo", "bar"),
					wantResp: HeartbeatResponse{MemberID: "m2", MemberEpoch: 10, HeartbeatIntervalMs: 5000,
						Assignment: tps("foo", 3, 4, 5, "bar", 2), ReplacedMemberID: "m2"},
					wantEpochs: [2]int32{10, 10}, wantState: GroupStable},
			},
			wantMembers: map[string]Partitions{
				"m1/i1@10/9:STABLE": tps("foo", 0, 1, 2, "bar", 0, 1), "m2/i2@10/0:STABLE": tps("foo", 3, 4, 5, "bar", 2)},
		},
		{
			// A changed subscription on the way back is an ordinary
			// subscription change: the group epoch moves.
			name: "testStaticMemberRejoinsWithNewSubscribedTopics",
			seed: func(g *Group) {
				seed(t, g, 10,
					staticMemberAt("m1", "instance-id-1", 10, []string{"foo"}, tps("foo", 0, 1, 2)),
					staticMemberAt("m2", "instance-id-2", 10, []string{"foo"}, tps("foo", 3, 4, 5)))
			},
			assign: map[string]Partitions{"m1": tps("foo", 0, 1, 2), "m2-rejoin": tps("foo", 3, 4, 5, "bar", 0, 1, 2)},
			steps: []staticStep{
				{req: leaveStatic("m2", "instance-id-2", LeaveGroupStaticMemberEpoch),
					wantResp:   HeartbeatResponse{MemberID: "m2", MemberEpoch: -2},
					wantEpochs: [2]int32{10, 10}, wantState: GroupReconciling},
				{req: join("m2-rejoin", "instance-id-2", "foo", "bar"),
					wantResp: HeartbeatResponse{MemberID: "m2-rejoin", MemberEpoch: 11, HeartbeatIntervalMs: 5000,
						Assignment: tps("foo", 3, 4, 5, "bar", 0, 1, 2), ReplacedMemberID: "m2"},
					wantEpochs: [2]int32{11, 11}, wantState: GroupReconciling},
			},
			wantMembers: map[string]Partitions{
				"m1/instance-id-1@10/9:STABLE": tps("foo", 0, 1, 2), "m2-rejoin/instance-id-2@11/0:STABLE": tps("foo", 3, 4, 5, "bar", 0, 1, 2)},
		},
		{
			name: "testNoGroupEpochBumpWhenStaticMemberTemporarilyLeaves",
			seed: twoStatic,
			steps: []staticStep{{req: leaveStatic("m2", "i2", LeaveGroupStaticMemberEpoch),
				wantResp:   HeartbeatResponse{MemberID: "m2", MemberEpoch: -2},
				wantEpochs: [2]int32{10, 10}, wantState: GroupReconciling}},
			wantMembers: map[string]Partitions{
				"m1/i1@10/9:STABLE": tps("foo", 0, 1, 2, "bar", 0, 1), "m2/i2@-2/9:STABLE": tps("foo", 3, 4, 5, "bar", 2)},
		},
		{
			name: "testLeavingStaticMemberBumpsGroupEpoch",
			seed: twoStatic,
			steps: []staticStep{{req: leaveStatic("m2", "i2", LeaveGroupMemberEpoch),
				wantResp:   HeartbeatResponse{MemberID: "m2", MemberEpoch: -1},
				wantEpochs: [2]int32{11, 10}, wantState: GroupAssigning}},
			wantMembers: map[string]Partitions{"m1/i1@10/9:STABLE": tps("foo", 0, 1, 2, "bar", 0, 1)},
		},
		{
			// The error leaves the group as it was.
			name:        "testShouldThrownUnreleasedInstanceIdExceptionWhenNewMemberJoinsWithInUseInstanceId",
			seed:        oneStatic,
			steps:       []staticStep{{req: join("m2", "i1", "foo", "bar"), wantErr: ErrUnreleasedInstanceID, wantEpochs: [2]int32{10, 10}, wantState: GroupStable}},
			wantMembers: map[string]Partitions{"m1/i1@10/9:STABLE": tps("foo", 0, 1, 2)},
		},
		{
			name: "testShouldThrownUnknownMemberIdExceptionWhenUnknownStaticMemberJoins",
			seed: oneStatic,
			steps: []staticStep{{req: &HeartbeatRequest{MemberID: "m2", InstanceID: "i2", MemberEpoch: 10, RebalanceTimeoutMs: 5000,
				SubscribedTopicNames: fb, OwnedTopicPartitions: Partitions{}},
				wantErr: ErrUnknownMemberID, wantEpochs: [2]int32{10, 10}, wantState: GroupStable}},
			wantMembers: map[string]Partitions{"m1/i1@10/9:STABLE": tps("foo", 0, 1, 2)},
		},
		{
			name: "testShouldThrowFencedInstanceIdExceptionWhenStaticMemberWithDifferentMemberIdJoins",
			seed: oneStatic,
			steps: []staticStep{{req: &HeartbeatRequest{MemberID: "unknown-m1", InstanceID: "i1", MemberEpoch: 11, RebalanceTimeoutMs: 5000,
				SubscribedTopicNames: fb, OwnedTopicPartitions: Partitions{}},
				wantErr: ErrFencedInstanceID, wantEpochs: [2]int32{10, 10}, wantState: GroupStable}},
			wantMembers: map[string]Partitions{"m1/i1@10/9:STABLE": tps("foo", 0, 1, 2)},
		},
		{
			name:        "testShouldThrowUnknownMemberIdExceptionWhenUnknownStaticMemberLeaves",
			seed:        oneStatic,
			steps:       []staticStep{{req: leaveStatic("m1", "unknown-i1", LeaveGroupStaticMemberEpoch), wantErr: ErrUnknownMemberID, wantEpochs: [2]int32{10, 10}, wantState: GroupStable}},
			wantMembers: map[string]Partitions{"m1/i1@10/9:STABLE": tps("foo", 0, 1, 2)},
		},
		{
			name:        "testShouldThrowFencedInstanceIdExceptionWhenStaticMemberWithDifferentMemberIdLeaves",
			seed:        oneStatic,
			steps:       []staticStep{{req: leaveStatic("unknown-m1", "i1", LeaveGroupStaticMemberEpoch), wantErr: ErrFencedInstanceID, wantEpochs: [2]int32{10, 10}, wantState: GroupStable}},
			wantMembers: map[string]Partitions{"m1/i1@10/9:STABLE": tps("foo", 0, 1, 2)},
		},
		{
			// Kafka's throwIfConsumerGroupHeartbeatRequestIsInvalid: -2
			// means nothing without an instance id.
			name:        "static leave without an instance id (throwIfConsumerGroupHeartbeatRequestIsInvalid)",
			seed:        oneStatic,
			steps:       []staticStep{{req: leaveStatic("m1", "", LeaveGroupStaticMemberEpoch), wantErr: ErrInvalidRequest, wantEpochs: [2]int32{10, 10}, wantState: GroupStable}},
			wantMembers: map[string]Partitions{"m1/i1@10/9:STABLE": tps("foo", 0, 1, 2)},
		},
		{
			// The session timer keeps running from the last heartbeat
			// through the -2 leave; nobody came back, so the member is
			// fenced and the group epoch moves.
			name:   "testSessionTimeoutExpirationStaticMember",
			seed:   func(*Group) {},
			assign: map[string]Partitions{"m": tps("foo", 0, 1, 2, 3, 4, 5)},
			steps: []staticStep{
				{req: &HeartbeatRequest{MemberID: "m", InstanceID: "m", MemberEpoch: 0, RebalanceTimeoutMs: 90000,
					SubscribedTopicNames: []string{"foo"}, OwnedTopicPartitions: Partitions{}},
					wantResp:   HeartbeatResponse{MemberID: "m", MemberEpoch: 1, HeartbeatIntervalMs: 5000, Assignment: tps("foo", 0, 1, 2, 3, 4, 5)},
					wantEpochs: [2]int32{1, 1}, wantState: GroupStable},
				{now: 1000, req: leaveStatic("m", "m", LeaveGroupStaticMemberEpoch),
					wantResp:   HeartbeatResponse{MemberID: "m", MemberEpoch: -2},
					wantEpochs: [2]int32{1, 1}, wantState: GroupReconciling},
				{now: 45000 - 1, wantEpochs: [2]int32{1, 1}, wantState: GroupReconciling},
				{now: 45000 + 1, wantExpired: []string{"m"}, wantEpochs: [2]int32{2, 1}, wantState: GroupEmpty},
			},
			wantMembers: map[string]Partitions{},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := NewGroup("fooup", fixedAssignor{out: tt.assign}, assignor.Topics{"foo": 6, "bar": 3}, DefaultConfig())
			tt.seed(g)
			for i, s := range tt.steps {
				if s.req == nil {
					var got []string
					for _, e := range g.Expire(s.now) {
						got = append(got, e.MemberID)
					}
					if !slices.Equal(got, s.wantExpired) {
						t.Fatalf("step %d: Expire(%d) fenced %v, want %v", i, s.now, got, s.wantExpired)
					}
				} else {
					resp, err := g.Heartbeat(s.now, *s.req)
					if !errors.Is(err, s.wantErr) {
						t.Fatalf("step %d: err = %v, want %v", i, err, s.wantErr)
					}
					if resp.MemberID != s.wantResp.MemberID || resp.MemberEpoch != s.wantResp.MemberEpoch ||
						resp.HeartbeatIntervalMs != s.wantResp.HeartbeatIntervalMs || resp.ReplacedMemberID != s.wantResp.ReplacedMemberID ||
						(resp.Assignment == nil) != (s.wantResp.Assignment == nil) || !resp.Assignment.Equal(s.wantResp.Assignment) {
						t.Fatalf("step %d: response %+v, want %+v", i, resp, s.wantResp)
					}
				}
				if got := [2]int32{g.GroupEpoch(), g.AssignmentEpoch()}; got != s.wantEpochs {
					t.Errorf("step %d: group/assignment epochs %v, want %v", i, got, s.wantEpochs)
				}
				if g.State() != s.wantState {
					t.Errorf("step %d: group state %s, want %s", i, g.State(), s.wantState)
				}
			}
			got := map[string]Partitions{}
			for _, m := range g.Members() {
				got[memberKey(m)] = m.Assigned
				// The coordinator's ownership follows the members: what a
				// member holds is owned by it, nobody else's.
				eachPartition(m.Assigned, func(tp assignor.TopicPartition) {
					if o := g.Owner(tp); o != m.ID {
						t.Errorf("%s is owned by %q, want %s", tp, o, m.ID)
					}
				})
			}
			if len(got) != len(tt.wantMembers) {
				t.Fatalf("members %v, want %v", got, tt.wantMembers)
			}
			for k, want := range tt.wantMembers {
				if a, ok := got[k]; !ok || !a.Equal(want) {
					t.Errorf("member %s: %v (present %v), want %v; members %v", k, a, ok, want, got)
				}
			}
		})
	}
}

func memberKey(m Member) string {
	return fmt.Sprintf("%s/%s@%d/%d:%s", m.ID, m.InstanceID, m.MemberEpoch, m.PreviousMemberEpoch, m.State)
}

// TestConsumerGroupMemberEpochValidationForStaticMember is
// GroupMetadataManagerTest's test of that name: a static member's
// heartbeat goes through the same epoch check as a dynamic one's.
func TestConsumerGroupMemberEpochValidationForStaticMember(t *testing.T) {
	g := NewGroup("fooup", fixedAssignor{}, assignor.Topics{"foo": 6}, DefaultConfig())
	m := staticMemberAt("m", "m", 100, []string{"foo", "bar"}, tps("foo", 1, 2, 3))
	seed(t, g, 100, m)
	fb := []string{"foo", "bar"}
	for _, tt := range []struct {
		name    string
		epoch   int32
		owned   Partitions
		wantErr error
	}{
		{"member epoch is greater than the expected epoch", 200, nil, ErrFencedMemberEpoch},
		{"member epoch is smaller than the expected epoch", 50, nil, ErrFencedMemberEpoch},
		{"member joins with previous epoch but without providing partitions", 99, nil, ErrFencedMemberEpoch},
		{"member joins with previous epoch and has a subset of the owned partitions", 99, tps("foo", 1, 2), nil},
	} {
		resp, err := g.Heartbeat(0, HeartbeatRequest{MemberID: "m", InstanceID: "m", MemberEpoch: tt.epoch, RebalanceTimeoutMs: 5000,
			SubscribedTopicNames: fb, OwnedTopicPartitions: tt.owned})
		if !errors.Is(err, tt.wantErr) || (err == nil && resp.MemberEpoch != 100) {
			t.Errorf("%s: epoch %d err %v, want epoch 100 / err %v", tt.name, resp.MemberEpoch, err, tt.wantErr)
		}
	}
}

// TestStaticLeaveReleasesPendingRevocation follows Kafka's
// consumerGroupStaticMemberGroupLeave, which clears the partitions the
// member was still revoking: the closing consumer gave them up, so the
// member waiting for them gets them at its next heartbeat, while the
// partitions the departed member keeps stay out of reach.
func TestStaticLeaveReleasesPendingRevocation(t *testing.T) {
	a := fixedAssignor{out: map[string]Partitions{"m1": tps("foo", 0, 1, 2, 3, 4, 5)}}
	g := NewGroup("fooup", a, assignor.Topics{"foo": 6}, DefaultConfig())
	hb := func(now int64, req *HeartbeatRequest) HeartbeatResponse {
		t.Helper()
		resp, err := g.Heartbeat(now, *req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	hb(0, join("m1", "i1", "foo"))
	a.out["m1"], a.out["m2"] = tps("foo", 0, 1, 2), tps("foo", 3, 4, 5)
	hb(0, join("m2", "", "foo"))
	if resp := hb(100, &HeartbeatRequest{MemberID: "m1", InstanceID: "i1", MemberEpoch: 1, RebalanceTimeoutMs: -1}); !resp.Assignment.Equal(tps("foo", 0, 1, 2)) {
		t.Fatalf("m1 not asked to revoke foo-3..5: %+v", resp)
	}
	if m := g.members["m1"]; m.State != UnrevokedPartitions || m.revocationDeadlineMs == 0 {
		t.Fatalf("m1 %s, revocation deadline %d; want UNREVOKED_PARTITIONS with a deadline", m.State, m.revocationDeadlineMs)
	}
	hb(200, leaveStatic("m1", "i1", LeaveGroupStaticMemberEpoch))
	m1 := g.members["m1"]
	if m1.MemberEpoch != -2 || !m1.PendingRevocation.Empty() || !m1.Assigned.Equal(tps("foo", 0, 1, 2)) || m1.revocationDeadlineMs != 0 {
		t.Fatalf("departed m1: %+v", *m1)
	}
	if resp := hb(300, &HeartbeatRequest{MemberID: "m2", MemberEpoch: 2, RebalanceTimeoutMs: -1, OwnedTopicPartitions: Partitions{}}); !resp.Assignment.Equal(tps("foo", 3, 4, 5)) {
		t.Errorf("m2 got %v, want foo-3..5 released by the leave", resp.Assignment)
	}
	if got := g.Owner(assignor.TopicPartition{Topic: "foo", Partition: 0}); got != "m1" {
		t.Errorf("foo-0 owned by %q, want the departed m1", got)
	}
	// Past the rebalance timeout the departed member is still there: only
	// its session timeout (from its last heartbeat, at 100) removes it.
	if got := g.Expire(5000 + 200); len(got) != 0 {
		t.Errorf("expired %v at the old rebalance deadline, want nothing", got)
	}
}

// failingAssignor is an assignor that cannot assign (Kafka's
// PartitionAssignorException).
type failingAssignor struct{}

func (failingAssignor) Name() string { return "range" }
func (failingAssignor) Assign(assignor.Topics, []assignor.Member) (assignor.Assignment, error) {
	return nil, errors.New("no assignment")
}

// TestFailedStaticRejoinKeepsDepartedMember: Kafka writes the takeover
// as records of the heartbeat, dropped with it when the heartbeat
// fails (here: the new subscription's target cannot be computed), so
// the departed member keeps its place and can still be taken over.
func TestFailedStaticRejoinKeepsDepartedMember(t *testing.T) {
	g := NewGroup("fooup", failingAssignor{}, assignor.Topics{"foo": 6, "bar": 3}, DefaultConfig())
	seed(t, g, 10, staticMemberAt("m1", "i1", 10, []string{"foo"}, tps("foo", 0, 1, 2)),
		staticMemberAt("m2", "i2", 10, []string{"foo"}, tps("foo", 3, 4, 5)))
	if _, err := g.Heartbeat(0, *leaveStatic("m2", "i2", LeaveGroupStaticMemberEpoch)); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Heartbeat(0, *join("m2-rejoin", "i2", "foo", "bar")); err == nil {
		t.Fatal("rejoin with a target that cannot be computed succeeded")
	}
	var got []string
	for _, m := range g.Members() {
		got = append(got, memberKey(m))
	}
	if want := []string{"m1/i1@10/9:STABLE", "m2/i2@-2/9:STABLE"}; !slices.Equal(got, want) || g.GroupEpoch() != 10 ||
		g.Owner(assignor.TopicPartition{Topic: "foo", Partition: 3}) != "m2" || !g.Target("m2").Equal(tps("foo", 3, 4, 5)) {
		t.Errorf("after the failed rejoin: members %v epoch %d owner of foo-3 %q target of m2 %v; want %v, 10, m2, foo-3..5",
			got, g.GroupEpoch(), g.Owner(assignor.TopicPartition{Topic: "foo", Partition: 3}), g.Target("m2"), want)
	}
	// Unchanged subscription: no target to compute, the takeover works.
	resp, err := g.Heartbeat(0, *join("m2-rejoin", "i2", "foo"))
	if err != nil || resp.MemberEpoch != 10 || !resp.Assignment.Equal(tps("foo", 3, 4, 5)) {
		t.Errorf("second rejoin: %+v %v", resp, err)
	}
}
