package client

import (
	"time"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// metadataCache is a client's view of partition leadership, refreshed from
// any broker it can reach: its first bootstrap broker, then the next on a
// timeout, as Kafka clients rotate through their bootstrap list.
type metadataCache struct {
	node      sim.NodeID
	net       *sim.Network
	sched     *sim.Scheduler
	bootstrap []int32
	next      int
	corr      int64
	inFlight  bool
	gen       int
	asked     sim.NodeID // the broker a request in flight went to
	parts     []protocol.PartitionMetadata
	known     bool
	onUpdate  func()
}

func (m *metadataCache) refresh() {
	if m.inFlight {
		return
	}
	m.inFlight = true
	m.corr++
	m.gen++
	gen := m.gen
	broker := m.bootstrap[m.next%len(m.bootstrap)]
	m.asked = kraft.BrokerNode(broker)
	m.net.Send(m.node, m.asked, protocol.MetadataRequest{CorrelationID: m.corr})
	m.sched.After(time.Second, "metadata-timeout "+string(m.node), func() {
		if m.inFlight && m.gen == gen {
			m.inFlight = false
			m.next++
			m.refresh()
		}
	})
}

// disconnected moves on to the next bootstrap broker if the one asked died.
func (m *metadataCache) disconnected(peer sim.NodeID) {
	if m.inFlight && m.asked == peer {
		m.inFlight = false
		m.next++
		m.refresh()
	}
}

func (m *metadataCache) handle(resp protocol.MetadataResponse) {
	if resp.CorrelationID != m.corr {
		return
	}
	m.inFlight = false
	m.parts, m.known = resp.Partitions, true
	if m.onUpdate != nil {
		m.onUpdate()
	}
}

// partitions counts a topic's partitions (0: unknown topic).
func (m *metadataCache) partitions(topic string) int {
	n := 0
	for _, p := range m.parts {
		if p.TP.Topic == topic {
			n++
		}
	}
	return n
}

// leader returns a partition's leader and epoch (-1 when unknown).
func (m *metadataCache) leader(tp protocol.TopicPartition) (int32, int32) {
	for _, p := range m.parts {
		if p.TP == tp {
			return p.Leader, p.LeaderEpoch
		}
	}
	return -1, -1
}
