package check

import (
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/group/coordinator"
	"github.com/loglab/loglab/engine/group/offsets"
	"github.com/loglab/loglab/engine/protocol"
)

func tps(ps ...int32) []protocol.TopicPartition {
	out := make([]protocol.TopicPartition, len(ps))
	for i, p := range ps {
		out[i] = protocol.TopicPartition{Topic: "t", Partition: p}
	}
	return out
}

func TestClassicDoubleOwners(t *testing.T) {
	both := []string{"A", "B"}
	for _, tc := range []struct {
		name    string
		members []memberView
		counted []string // the member ids the coordinator counts
		want    string   // a violation containing this; "" for none
	}{
		{"ConsumerCoordinator.onJoinComplete: one generation's assignment gives each partition once",
			[]memberView{{Name: "a", MemberID: "A", Generation: 3, Assignment: tps(0, 1)}, {Name: "b", MemberID: "B", Generation: 3, Assignment: tps(2)}}, both, ""},
		{"hand-broken: two members of generation 3 both hold t/1",
			[]memberView{{Name: "a", MemberID: "A", Generation: 3, Assignment: tps(0, 1)}, {Name: "b", MemberID: "B", Generation: 3, Assignment: tps(1, 2)}}, both,
			"t/1 is held by a and b of group g, both at generation 3"},
		{"a zombie kicked out at generation 3 still holds t/1 while generation 4 gave it away (Kafka fences its commits, not its fetches)",
			[]memberView{{Name: "a", MemberID: "A", Generation: 3, Assignment: tps(1)}, {Name: "b", MemberID: "B", Generation: 4, Assignment: tps(0, 1)}}, both, ""},
		{"static member replacement: the new process took a's group.instance.id at the same generation; a is fenced at its next heartbeat",
			[]memberView{{Name: "a", MemberID: "A", Generation: 1, Assignment: tps(1)}, {Name: "b", MemberID: "B", Generation: 1, Assignment: tps(1)}}, []string{"B"}, ""},
		{"AbstractCoordinator.resetStateAndGeneration: a member at generation -1 is out of the group",
			[]memberView{{Name: "a", MemberID: "A", Generation: -1, Assignment: tps(1)}, {Name: "b", MemberID: "B", Generation: -1, Assignment: tps(1)}}, both, ""},
		{"KIP-848 members' epochs are per member: not compared as generations",
			[]memberView{{Name: "a", MemberID: "A", Generation: 2, Consumer: true, Assignment: tps(1)}, {Name: "b", MemberID: "B", Generation: 2, Consumer: true, Assignment: tps(1)}}, both, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkFound(t, classicDoubleOwners("g", tc.members, tc.counted), tc.want)
		})
	}
}

func TestCoordinatorDoubleOwners(t *testing.T) {
	desc := func(ms ...coordinator.MemberDescription) coordinator.GroupDescription {
		return coordinator.GroupDescription{GroupID: "g", Type: "consumer", Epoch: 5, Members: ms}
	}
	for _, tc := range []struct {
		name string
		d    coordinator.GroupDescription
		want string
	}{
		{"CurrentAssignmentBuilder: t/1 waits in b's target until a has revoked it (unreleased partitions)",
			desc(coordinator.MemberDescription{MemberID: "a", Assigned: tps(0), PendingRevocation: tps(1)},
				coordinator.MemberDescription{MemberID: "b", Assigned: tps(2), Target: tps(1, 2)}), ""},
		{"hand-broken: t/1 assigned to b while a still has to revoke it",
			desc(coordinator.MemberDescription{MemberID: "a", Assigned: tps(0), PendingRevocation: tps(1)},
				coordinator.MemberDescription{MemberID: "b", Assigned: tps(1, 2)}),
			"coordinator of group g counts t/1 for members a and b at group epoch 5"},
		{"hand-broken: t/0 assigned to both",
			desc(coordinator.MemberDescription{MemberID: "a", Assigned: tps(0)}, coordinator.MemberDescription{MemberID: "b", Assigned: tps(0)}),
			"counts t/0 for members a and b"},
		{"a classic group's description is the clients' business (its generation rule)",
			coordinator.GroupDescription{GroupID: "g", Type: "classic", Members: []coordinator.MemberDescription{{MemberID: "a", Assigned: tps(0)}, {MemberID: "b", Assigned: tps(0)}}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) { checkFound(t, coordinatorDoubleOwners(tc.d), tc.want) })
	}
}

func TestConsumerDoubleOwners(t *testing.T) {
	for _, tc := range []struct {
		name    string
		members []memberView
		counted []string
		want    string
	}{
		{"ConsumerMembershipManager: a revoked partition is released before the ack, so members never overlap",
			[]memberView{{Name: "a", MemberID: "A", Consumer: true, Assignment: tps(0)}, {Name: "b", MemberID: "B", Consumer: true, Assignment: tps(1)}},
			[]string{"A", "B"}, ""},
		{"a member the coordinator fenced (session expired) still holds t/1: a zombie, allowed",
			[]memberView{{Name: "a", MemberID: "A", Consumer: true, Assignment: tps(1)}, {Name: "b", MemberID: "B", Consumer: true, Assignment: tps(1)}},
			[]string{"B"}, ""},
		{"hand-broken: two counted members hold t/1",
			[]memberView{{Name: "a", MemberID: "A", Generation: 3, Consumer: true, Assignment: tps(1)}, {Name: "b", MemberID: "B", Generation: 4, Consumer: true, Assignment: tps(0, 1)}},
			[]string{"A", "B"}, "t/1 is held by a (epoch 3) and b (epoch 4), both members of group g"},
		{"classic members are judged by generation, not here",
			[]memberView{{Name: "a", MemberID: "A", Assignment: tps(1)}, {Name: "b", MemberID: "B", Assignment: tps(1)}},
			[]string{"A", "B"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) { checkFound(t, consumerDoubleOwners("g", tc.members, tc.counted), tc.want) })
	}
}

func commitRecord(group string, p int32, off int64) offsets.Record {
	return offsets.Record{Key: &offsets.OffsetCommitKey{Group: group, Topic: "t", Partition: p}, Value: &offsets.OffsetCommitValue{Offset: off, LeaderEpoch: -1}}
}

func TestGroupWatchCommittedOffsets(t *testing.T) {
	type step struct {
		rec offsets.Record
		at  int64
	}
	tombstone := offsets.Record{Key: &offsets.OffsetCommitKey{Group: "g", Topic: "t", Partition: 0}}
	classicGen := func(members int) offsets.Record {
		return offsets.Record{Key: &offsets.GroupMetadataKey{Group: "g"}, Value: &offsets.GroupMetadataValue{Members: make([]offsets.MemberMetadata, members)}}
	}
	kip848Member := func(joined bool) offsets.Record {
		r := offsets.Record{Key: &offsets.MemberKey{RecordType: offsets.TypeConsumerGroupMemberMetadata, GroupID: "g", MemberID: "A"}}
		if joined {
			r.Value = &offsets.ConsumerGroupMemberMetadataValue{}
		}
		return r
	}
	for _, tc := range []struct {
		name    string
		unclean bool
		seek    bool // NoteSeek of t/0 before the steps
		steps   []step
		want    string
	}{
		{"OffsetMetadataManager.commitOffset: a member commits its position, which only moves on",
			false, false, []step{{classicGen(2), 0}, {commitRecord("g", 0, 3), 1}, {commitRecord("g", 0, 3), 2}, {commitRecord("g", 0, 7), 3}}, ""},
		{"hand-broken: with two classic members, the committed offset goes from 7 back to 5",
			false, false, []step{{classicGen(2), 0}, {commitRecord("g", 0, 7), 1}, {commitRecord("g", 0, 5), 4}},
			"group g's committed offset of t/0 went back from 7 to 5 (__consumer_offsets record at offset 4)"},
		{"hand-broken: with a KIP-848 member, the committed offset goes back",
			false, false, []step{{kip848Member(true), 0}, {commitRecord("g", 0, 7), 1}, {commitRecord("g", 0, 5), 2}}, "went back from 7 to 5"},
		{"another group's commits are its own",
			false, false, []step{{classicGen(1), 0}, {commitRecord("g", 0, 7), 1}, {commitRecord("h", 0, 5), 2}}, ""},
		{"kafka-consumer-groups.sh --reset-offsets once the classic group is empty (its GroupMetadata has no members)",
			false, false, []step{{classicGen(2), 0}, {commitRecord("g", 0, 7), 1}, {classicGen(0), 2}, {commitRecord("g", 0, 0), 3}}, ""},
		{"--reset-offsets once the KIP-848 group's last member left (its member record's tombstone)",
			false, false, []step{{kip848Member(true), 0}, {commitRecord("g", 0, 7), 1}, {kip848Member(false), 2}, {commitRecord("g", 0, 0), 3}}, ""},
		{"a consumer using assign() commits into a group that never had members (a simple group)",
			false, false, []step{{commitRecord("g", 0, 7), 0}, {commitRecord("g", 0, 2), 1}}, ""},
		{"hand-broken: members are back after the reset, then the offset goes back",
			false, false, []step{{classicGen(0), 0}, {commitRecord("g", 0, 7), 1}, {commitRecord("g", 0, 0), 2}, {classicGen(1), 3}, {commitRecord("g", 0, 5), 4}, {commitRecord("g", 0, 2), 5}},
			"went back from 5 to 2"},
		{"GroupMetadataManager.cleanupGroupMetadata: an expired offset's tombstone, then a commit from the start",
			false, false, []step{{classicGen(1), 0}, {commitRecord("g", 0, 7), 1}, {tombstone, 2}, {commitRecord("g", 0, 0), 3}}, ""},
		{"KafkaConsumer.seek back, then a commit: the application reprocesses (once)",
			false, true, []step{{classicGen(1), 0}, {commitRecord("g", 0, 7), 1}, {commitRecord("g", 0, 2), 2}}, ""},
		{"hand-broken: after the seek's decrease, another one",
			false, true, []step{{classicGen(1), 0}, {commitRecord("g", 0, 7), 1}, {commitRecord("g", 0, 2), 2}, {commitRecord("g", 0, 5), 3}, {commitRecord("g", 0, 4), 4}},
			"went back from 5 to 4"},
		{"an unclean election truncated t/0: auto.offset.reset moved the consumer back",
			true, false, []step{{classicGen(1), 0}, {commitRecord("g", 0, 7), 1}, {commitRecord("g", 0, 2), 2}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := (&Checker{}).groupWatch()
			if tc.seek {
				w.seeks["g"] = map[protocol.TopicPartition]bool{tps(0)[0]: true}
			}
			unclean := map[protocol.TopicPartition]bool{}
			if tc.unclean {
				unclean[tps(0)[0]] = true
			}
			var got []string
			for _, s := range tc.steps {
				got = append(got, w.apply(s.rec, s.at, unclean)...)
			}
			checkFound(t, got, tc.want)
		})
	}
}

// TestPickCoordinator: whose members the group checks count. The fenced
// member's partitions overlap its successor's for as long as it has not
// heard (GroupMetadataManagerTest's testSessionTimeoutExpiration: the
// session expiry removes the member and frees its partitions at once;
// ConsumerMembershipManager learns it at its next heartbeat, from
// UNKNOWN_MEMBER_ID, and only then calls onPartitionsLost): the checker
// must take the member list from the coordinator that fenced it, even when
// that coordinator is a broker cut off from the controllers, which leads
// on its last metadata (seed 908).
func TestPickCoordinator(t *testing.T) {
	b := func(id int, epoch int32) coordState {
		return coordState{broker: id, epoch: epoch, logEnd: 100, loaded: true}
	}
	for _, tc := range []struct {
		name    string
		named   *coordState
		leading []coordState
		last    coordState
		want    int // the broker; 0 for none
	}{
		{"the leader the metadata names, up and leading, is the coordinator FindCoordinator answers with",
			&coordState{broker: 2, epoch: 5}, []coordState{b(1, 4)}, b(1, 4), 2},
		{"the named leader still loading: its state (loaded=false) is taken, and no description until it is loaded",
			&coordState{broker: 2, epoch: 5}, nil, b(1, 4), 2},
		{"seed 908: the controller fenced every broker and named no leader; b1 leads on in epoch 6, its followers cut off with it, and fences members",
			nil, []coordState{b(1, 6)}, b(1, 6), 1},
		{"no description yet: a self-appointed leader is all there is",
			nil, []coordState{b(1, 6)}, coordState{}, 1},
		{"two brokers lead in their own view (the old one has not heard): the newest epoch",
			nil, []coordState{b(1, 6), b(3, 7)}, b(1, 6), 3},
		{"a deposed coordinator behind its successor (described in epoch 8, now down): the last description stands",
			nil, []coordState{b(1, 6)}, b(3, 8), 0},
		{"nobody leads: the last description stands",
			nil, nil, b(1, 6), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := pickCoordinator(tc.named, tc.leading, tc.last)
			if !ok {
				got.broker = 0
			}
			if got.broker != tc.want {
				t.Fatalf("picked b%d (%t), want b%d", got.broker, ok, tc.want)
			}
		})
	}
}

func TestReplayedBelowCommitted(t *testing.T) {
	committed := map[protocol.TopicPartition]int64{tps(0)[0]: 7, tps(1)[0]: 4}
	shows := func(offs ...int64) coordinator.GroupDescription {
		d := coordinator.GroupDescription{GroupID: "g"}
		for i, o := range offs {
			if o >= 0 {
				d.Offsets = append(d.Offsets, coordinator.CommittedOffset{TP: tps(int32(i))[0], Offset: o})
			}
		}
		return d
	}
	none := func(protocol.TopicPartition) bool { return false }
	for _, tc := range []struct {
		name    string
		d       coordinator.GroupDescription
		state   coordState
		excused func(protocol.TopicPartition) bool
		want    string
	}{
		{"CoordinatorLoaderImpl.load: the new coordinator replayed every committed record", shows(7, 4), coordState{2, 1, 9, true, true}, none, ""},
		{"a commit written but not yet committed shows higher", shows(9, 4), coordState{2, 1, 10, true, false}, none, ""},
		{"hand-broken: the replay lost t/0's last commit", shows(5, 4), coordState{2, 1, 9, true, true}, none,
			"coordinator of group g (b2@1:9 loaded=true hw=true) shows t/0 committed at 5, the log committed 7"},
		{"hand-broken: the replay lost t/1 altogether", shows(7, -1), coordState{2, 1, 9, true, true}, none, "lost the committed offset 4 of t/1"},
		{"an expiry tombstone not yet committed: t/1 gone from memory only", shows(7, -1), coordState{2, 1, 10, true, false}, none, ""},
		{"an admin reset the group", shows(0, 0), coordState{2, 1, 9, true, true}, func(protocol.TopicPartition) bool { return true }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkFound(t, replayedBelowCommitted(tc.d, committed, tc.excused, tc.state), tc.want)
		})
	}
}

func checkFound(t *testing.T, got []string, want string) {
	t.Helper()
	if want == "" {
		if len(got) > 0 {
			t.Fatalf("found %q, want no violation", got)
		}
		return
	}
	for _, g := range got {
		if strings.Contains(g, want) {
			return
		}
	}
	t.Fatalf("found %q, want a violation containing %q", got, want)
}
