package broker

import (
	"slices"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// How a leader settles the ISR change it proposed with the controller's
// answer, as Kafka's Partition.submitAlterPartition and
// handleAlterPartitionError do: each case names the PartitionTest case it
// mirrors. Broker 1 leads t/0 (replicas 1,2,3, ISR 1,2); replica 3
// catches up and the leader proposes ISR 1,2,3. The high watermark must
// wait for the maximal ISR as long as the proposal may have been applied.
func TestAlterPartitionAnswers(t *testing.T) {
	committed := protocol.AlterPartitionResponse{LeaderEpoch: 0, PartitionEpoch: 1, ISR: []int32{1, 2, 3}}
	for _, c := range []struct {
		name, mirrors string
		answer        *protocol.AlterPartitionResponse // nil: the answer is lost
		wantPending   bool
		wantISR       []int32
		wantResent    bool
	}{
		{"committed", "testAlterIsrExpand", &committed, false, []int32{1, 2, 3}, false},
		{"INELIGIBLE_REPLICA resets to the committed state", "testIsrNotExpandedIfReplicaIsFencedOrShutdown",
			&protocol.AlterPartitionResponse{Error: protocol.IneligibleReplica}, false, []int32{1, 2}, false},
		{"FENCED_LEADER_EPOCH waits for metadata", "testAlterIsrNewLeaderElected",
			&protocol.AlterPartitionResponse{Error: protocol.FencedLeaderEpoch}, true, []int32{1, 2}, false},
		{"INVALID_UPDATE_VERSION waits for metadata", "testAlterIsrInvalidVersion",
			&protocol.AlterPartitionResponse{Error: protocol.InvalidUpdateVersion}, true, []int32{1, 2}, false},
		{"UNKNOWN_TOPIC_OR_PARTITION waits for metadata", "testAlterIsrUnknownTopic",
			&protocol.AlterPartitionResponse{Error: protocol.UnknownTopicOrPartition}, true, []int32{1, 2}, false},
		{"an unexpected error is sent again", "testAlterIsrUnexpectedError",
			&protocol.AlterPartitionResponse{Error: protocol.NotController}, true, []int32{1, 2}, true},
		{"a lost answer is sent again, still pending", "testRetryShrinkIsr", nil, true, []int32{1, 2}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, []int32{1, 2, 3}, []int32{1, 2}, "1")
			var asked []protocol.AlterPartitionRequest
			h.net.Attach(kraft.ControllerNode, func(env *sim.Envelope) {
				h.controller(env)
				m, ok := env.Msg.(protocol.AlterPartitionRequest)
				if !ok {
					return
				}
				asked = append(asked, m)
				if c.answer != nil && len(asked) == 1 {
					a := *c.answer
					a.TP, a.Proposal = m.TP, m.Proposal
					h.net.Send(kraft.ControllerNode, env.From, a)
				}
			})
			h.metadata = append(h.metadata,
				protocol.MetadataRecord{Offset: 5, Type: "RegisterBroker", BrokerID: 3, BrokerEpoch: 5},
				protocol.MetadataRecord{Offset: 6, Type: "UnfenceBroker", BrokerID: 3, BrokerEpoch: 5})
			h.run(h.broker.cfg.HeartbeatInterval + 10*time.Millisecond)
			h.fetchAsFollower(3, 0)
			if len(asked) != 1 || !slices.Equal(asked[0].NewISR, []int32{1, 2, 3}) {
				t.Fatalf("replica 3 caught up: want one AlterPartition for ISR 1,2,3, the controller got %+v", asked)
			}
			r := h.broker.Replica(protocol.TopicPartition{Topic: "t"})
			if got := r.pendingISR != nil; got != c.wantPending {
				t.Errorf("%s: pending proposal = %v, want %v", c.mirrors, r.pendingISR, c.wantPending)
			}
			if !slices.Equal(r.ISR, c.wantISR) {
				t.Errorf("%s: ISR %v, want %v", c.mirrors, r.ISR, c.wantISR)
			}
			h.run(h.broker.cfg.ReplicaLagTimeMax/2 + time.Millisecond)
			if resent := len(asked) > 1; resent != c.wantResent {
				t.Errorf("%s: sent again = %v (%d requests), want %v", c.mirrors, resent, len(asked), c.wantResent)
			}
			if len(asked) > 1 && asked[1].Proposal != asked[0].Proposal {
				t.Errorf("%s: the resend is proposal %d, not the pending %d", c.mirrors, asked[1].Proposal, asked[0].Proposal)
			}
		})
	}
}

// An answer to a proposal the leader has since replaced is ignored
// (Partition.submitAlterPartition: "partitionState != proposedIsrState").
func TestAlterPartitionAnswerToAnOlderProposalIsIgnored(t *testing.T) {
	h := newHarness(t, []int32{1, 2, 3}, []int32{1, 2}, "1")
	r := h.broker.Replica(protocol.TopicPartition{Topic: "t"})
	h.broker.alterPartition(r, []int32{1, 2, 3})
	h.broker.alterPartition(r, []int32{1})
	h.net.Send(kraft.ControllerNode, h.broker.Node, protocol.AlterPartitionResponse{TP: r.TP, Error: protocol.IneligibleReplica, Proposal: 1})
	h.run(5 * time.Millisecond)
	if !slices.Equal(r.pendingISR, []int32{1}) {
		t.Errorf("an answer to proposal 1 settled proposal 2: pending %v", r.pendingISR)
	}
}
