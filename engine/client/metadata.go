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
	node       sim.NodeID
	net        *sim.Network
	sched      *sim.Scheduler
	bootstrap  []int32
	next       int
	corr       int64
	inFlight   bool
	gen        int
	asked      sim.NodeID // the broker a request in flight went to
	lastAnswer time.Duration
	delayed    bool // a refresh waits out the backoff
	parts      []protocol.PartitionMetadata
	known      bool
	onUpdate   func()
}

// metadataBackoff is retry.backoff.ms for metadata: a client asks at most
// this often, however many of its requests fail meanwhile.
const metadataBackoff = 100 * time.Millisecond

func (m *metadataCache) refresh() {
	if m.inFlight || m.delayed {
		return
	}
	if wait := m.lastAnswer + metadataBackoff - m.sched.Clock.Elapsed(); m.known && wait > 0 {
		m.delayed = true
		m.sched.After(wait, "metadata-backoff "+string(m.node), func() {
			m.delayed = false
			m.refresh()
		})
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
	m.lastAnswer = m.sched.Clock.Elapsed()
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
