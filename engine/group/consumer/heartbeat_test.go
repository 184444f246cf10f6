package consumer

import (
	"testing"

	"github.com/loglab/loglab/engine/group/assignor"
)

// fixedAssignor is Kafka's MockPartitionAssignor: it returns the
// assignment the test prepared, whatever the input.
type fixedAssignor struct{ out map[string]Partitions }

func (fixedAssignor) Name() string { return "range" }

func (f fixedAssignor) Assign(_ assignor.Topics, members []assignor.Member) (assignor.Assignment, error) {
	out := assignor.Assignment{}
	for _, m := range members {
		eachPartition(f.out[m.ID], func(tp assignor.TopicPartition) { out[m.ID] = append(out[m.ID], tp) })
	}
	return out, nil
}

// seed is Kafka's ConsumerGroupBuilder: a group at epoch whose members
// already own their target.
func seed(t *testing.T, g *Group, epoch int32, members ...Member) {
	t.Helper()
	g.groupEpoch, g.assignmentEpoch = epoch, epoch
	for _, m := range members {
		m := m
		if m.PendingRevocation == nil {
			m.PendingRevocation = Partitions{}
		}
		g.members[m.ID] = &m
		g.target[m.ID] = m.Assigned.normalized()
		if err := g.replaceOwnership(nil, &m); err != nil {
			t.Fatal(err)
		}
	}
}

// step is one heartbeat and what Kafka answers to it.
type step struct {
	req        HeartbeatRequest
	wantEpoch  int32
	wantAssign Partitions // nil: no assignment in the response
	wantState  MemberState
	wantGroup  GroupState
}

func runSteps(t *testing.T, g *Group, steps []step) {
	t.Helper()
	for i, s := range steps {
		if s.req.RebalanceTimeoutMs == 0 {
			s.req.RebalanceTimeoutMs = -1
		}
		resp, err := g.Heartbeat(0, s.req)
		if err != nil {
			t.Fatalf("step %d (%s): %v", i, s.req.MemberID, err)
		}
		if resp.MemberEpoch != s.wantEpoch || resp.HeartbeatIntervalMs != 5000 ||
			(resp.Assignment == nil) != (s.wantAssign == nil) || !resp.Assignment.Equal(s.wantAssign) {
			t.Errorf("step %d (%s): response epoch=%d assignment=%v interval=%d, want epoch=%d assignment=%v",
				i, s.req.MemberID, resp.MemberEpoch, resp.Assignment, resp.HeartbeatIntervalMs, s.wantEpoch, s.wantAssign)
		}
		if got := g.members[s.req.MemberID].State; got != s.wantState {
			t.Errorf("step %d (%s): member state %s, want %s", i, s.req.MemberID, got, s.wantState)
		}
		if got := g.State(); got != s.wantGroup {
			t.Errorf("step %d: group state %s, want %s", i, got, s.wantGroup)
		}
	}
}
