package kraft

import (
	"slices"
	"testing"

	"github.com/loglab/loglab/engine/protocol"
)

// The controller's answers to damaged storage, each case named after the
// Kafka method it mirrors (damage.go says where loglab differs).
func TestControllerActsOnDamagedStorage(t *testing.T) {
	orders := protocol.TopicPartition{Topic: "orders", Partition: 0}
	type beat struct {
		from             int32
		offline, damaged bool
		leaderlessLogEnd int64 // reported when >= 0
	}
	for _, tc := range []struct {
		name       string
		leader     int32
		isr        []int32 // before; replicas are 1,2,3
		beats      []beat
		wantLeader int32
		wantISR    []int32
	}{
		{"handleBrokerUncleanShutdown: a damaged follower leaves the ISR, the leader stays",
			1, []int32{1, 2, 3}, []beat{{from: 3, damaged: true, leaderlessLogEnd: -1}}, 1, []int32{1, 2}},
		{"handleBrokerUncleanShutdown: a damaged replica already out of the ISR changes nothing",
			1, []int32{1, 2}, []beat{{from: 3, damaged: true, leaderlessLogEnd: -1}}, 1, []int32{1, 2}},
		{"handleBrokerUncleanShutdown: the last ISR member, damaged, leaves it: no leader until every replica reported",
			-1, []int32{3}, []beat{{from: 3, damaged: true, leaderlessLogEnd: 1000}, {from: 1, leaderlessLogEnd: 2000}}, -1, nil},
		{"Balanced unclean recovery (KIP-966): then the longest log leads, not the damaged one",
			-1, []int32{3}, []beat{{from: 3, damaged: true, leaderlessLogEnd: 1000}, {from: 1, leaderlessLogEnd: 1900}, {from: 2, leaderlessLogEnd: 2000}}, 2, []int32{2}},
		{"Balanced unclean recovery: ties go to a replica that lost nothing",
			-1, []int32{3}, []beat{{from: 3, damaged: true, leaderlessLogEnd: 2000}, {from: 1, leaderlessLogEnd: 2000}, {from: 2, leaderlessLogEnd: 2000}}, 1, []int32{1}},
		{"handleDirectoriesOffline: an offline leader hands leadership to the next in-sync replica",
			1, []int32{1, 2, 3}, []beat{{from: 1, offline: true, leaderlessLogEnd: -1}}, 2, []int32{2, 3}},
		{"handleDirectoriesOffline: the last ISR member offline keeps the partition offline",
			-1, []int32{3}, []beat{{from: 3, offline: true, leaderlessLogEnd: -1}}, -1, []int32{3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := controllerWithBrokers(t, 3, 1)
			c.commit(protocol.MetadataRecord{Type: "Topic", Topic: "orders", Partitions: 1},
				protocol.MetadataRecord{Type: "Partition", Topic: "orders", Partition: 0, Replicas: []int32{1, 2, 3}, ISR: tc.isr, Leader: tc.leader})
			for _, b := range tc.beats {
				m := protocol.BrokerHeartbeatRequest{BrokerID: b.from, BrokerEpoch: int64(b.from), MetadataOffset: c.log.End() - 1}
				if b.offline {
					m.OfflineReplicas = []protocol.TopicPartition{orders}
				}
				if b.damaged {
					m.DamagedReplicas = []protocol.TopicPartition{orders}
				}
				if b.leaderlessLogEnd >= 0 {
					m.LeaderlessLogEnds = []protocol.ReplicaLogEnd{{TP: orders, LogEnd: b.leaderlessLogEnd}}
				}
				c.heartbeat(BrokerNode(b.from), m)
			}
			p := c.Image().Partition("orders", 0)
			if p.Leader != tc.wantLeader || !slices.Equal(p.ISR, tc.wantISR) {
				t.Fatalf("leader %d ISR %v, want leader %d ISR %v", p.Leader, p.ISR, tc.wantLeader, tc.wantISR)
			}
		})
	}
}

// A controller that takes over while a partition has no in-sync replica
// (its predecessor took out the damaged last one) still recovers it.
func TestANewControllerRecoversAPartitionWithNoInSyncReplica(t *testing.T) {
	c := controllerWithBrokers(t, 3, 1)
	c.commit(protocol.MetadataRecord{Type: "Topic", Topic: "orders", Partitions: 1},
		protocol.MetadataRecord{Type: "Partition", Topic: "orders", Partition: 0, Replicas: []int32{1, 2, 3}, ISR: nil, Leader: -1})
	orders := protocol.TopicPartition{Topic: "orders", Partition: 0}
	for i, end := range []int64{5, 9, 7} {
		id := int32(i + 1)
		c.heartbeat(BrokerNode(id), protocol.BrokerHeartbeatRequest{BrokerID: id, BrokerEpoch: int64(id), MetadataOffset: c.log.End() - 1,
			LeaderlessLogEnds: []protocol.ReplicaLogEnd{{TP: orders, LogEnd: end}}})
	}
	if p := c.Image().Partition("orders", 0); p.Leader != 2 || !slices.Equal(p.ISR, []int32{2}) {
		t.Fatalf("leader %d ISR %v, want 2, the longest log", p.Leader, p.ISR)
	}
}
