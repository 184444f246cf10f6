package client

import (
	"math/rand/v2"
	"slices"
	"time"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// metadataCache is a client's view of partition leadership, refreshed from
// any broker it can reach: its first bootstrap broker, then the next on a
// timeout, as Kafka clients rotate through their bootstrap list.
//
// Refreshes back off as Kafka's Metadata.timeToAllowUpdate does (KIP-580):
// after a failed request by retry.backoff.ms * 2^(failures-1), and after
// answers that changed nothing by retry.backoff.ms * 2^(answers-1), both
// capped at retry.backoff.max.ms with ±20% jitter. With every broker down
// a client asks about once a second, not at every disconnect notice.
type metadataCache struct {
	node      sim.NodeID
	net       *sim.Network
	sched     *sim.Scheduler
	rng       *rand.Rand
	backoff   exponentialBackoff
	bootstrap []int32
	next      int
	corr      int64
	inFlight  bool
	gen       int
	asked     sim.NodeID // the broker a request in flight went to
	// lastRefresh is when the last request failed or was answered (-1:
	// never asked, so the first refresh goes at once).
	lastRefresh time.Duration
	attempts    int        // failed requests since the last answer
	equivalent  int        // answers in a row that brought nothing new
	wakeup      *sim.Event // a refresh waiting out the backoff
	parts       []protocol.PartitionMetadata
	known       bool
	onUpdate    func()
	// Requests counts metadata requests sent, for tests and the curious.
	requests int
}

func newMetadataCache(node sim.NodeID, net *sim.Network, sched *sim.Scheduler, rng *rand.Rand, bootstrap []int32, backoff exponentialBackoff, onUpdate func()) *metadataCache {
	return &metadataCache{node: node, net: net, sched: sched, rng: rng, backoff: backoff, bootstrap: bootstrap, lastRefresh: -1, onUpdate: onUpdate}
}

// timeToAllowUpdate is Kafka's Metadata.timeToAllowUpdate: how long until
// the backoff lets another request go.
func (m *metadataCache) timeToAllowUpdate(now time.Duration) time.Duration {
	if m.lastRefresh < 0 || now-m.lastRefresh >= m.backoff.max {
		return 0 // no backoff can be longer: no jitter to draw
	}
	wait := m.lastRefresh + m.backoff.backoff(max(m.attempts-1, 0), m.rng) - now
	if m.equivalent > 0 {
		wait = max(wait, m.lastRefresh+m.backoff.backoff(m.equivalent-1, m.rng)-now)
	}
	return max(wait, 0)
}

// requestUpdate asks for fresh metadata. newTopic is Kafka's
// resetEquivalentResponseBackoff: a client asking about a topic it has not
// asked about before should not wait out the backoff of answers that
// brought nothing new.
func (m *metadataCache) requestUpdate(newTopic bool) {
	if newTopic {
		m.equivalent = 0
	}
	m.refresh()
}

func (m *metadataCache) refresh() {
	if m.inFlight || m.wakeup != nil {
		return
	}
	if wait := m.timeToAllowUpdate(m.sched.Clock.Elapsed()); wait > 0 {
		m.wakeup = m.sched.After(wait, "metadata-backoff "+string(m.node), func() {
			m.wakeup = nil
			m.refresh()
		})
		return
	}
	m.inFlight = true
	m.corr++
	m.gen++
	m.requests++
	gen := m.gen
	broker := m.bootstrap[m.next%len(m.bootstrap)]
	m.asked = kraft.BrokerNode(broker)
	m.net.Send(m.node, m.asked, protocol.MetadataRequest{CorrelationID: m.corr})
	m.sched.After(time.Second, "metadata-timeout "+string(m.node), func() {
		if m.inFlight && m.gen == gen {
			m.failed()
		}
	})
}

// failed is Kafka's Metadata.failedUpdate: the next request goes to the
// next bootstrap broker, after a longer backoff.
func (m *metadataCache) failed() {
	m.inFlight = false
	m.next++
	m.lastRefresh = m.sched.Clock.Elapsed()
	m.attempts++
	m.equivalent = 0
	m.refresh()
}

// stop forgets the request in flight and the refresh waiting out its
// backoff: the client's process died, and a dead process neither times a
// request out nor sends it again.
func (m *metadataCache) stop() {
	m.gen++
	m.inFlight = false
	if m.wakeup != nil {
		m.wakeup.Cancelled = true
		m.wakeup = nil
	}
}

// disconnected moves on to the next bootstrap broker if the one asked died.
func (m *metadataCache) disconnected(peer sim.NodeID) {
	if m.inFlight && m.asked == peer {
		m.failed()
	}
}

func (m *metadataCache) handle(resp protocol.MetadataResponse) {
	if resp.CorrelationID != m.corr || !m.inFlight {
		return
	}
	m.inFlight = false
	m.lastRefresh = m.sched.Clock.Elapsed()
	m.attempts = 0
	if m.known && equivalentMetadata(m.parts, resp.Partitions) {
		m.equivalent++
	} else {
		m.equivalent = 0
	}
	m.parts, m.known = resp.Partitions, true
	if m.onUpdate != nil {
		m.onUpdate()
	}
}

// equivalentMetadata says whether an answer brought nothing new, as
// Kafka's Metadata.updateLatestMetadata decides: same partitions, same
// leaders and epochs. A partition without a leader is never "nothing
// new" (Kafka resets the count for partitions missing a leader epoch).
func equivalentMetadata(old, cur []protocol.PartitionMetadata) bool {
	return slices.EqualFunc(old, cur, func(a, b protocol.PartitionMetadata) bool {
		return a.TP == b.TP && a.Leader == b.Leader && a.LeaderEpoch == b.LeaderEpoch && b.Leader >= 0
	})
}

// askElsewhere sends the next request to the next bootstrap broker: the
// last answer lacked what the client waits for (a broker that has not yet
// applied a new topic's metadata record does not know it). Kafka's
// leastLoadedNode starts from a random node each time, so it does not keep
// asking one broker.
func (m *metadataCache) askElsewhere() { m.next++ }

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

// available lists a topic's partitions that have a leader, as Kafka's
// Cluster.availablePartitionsForTopic does.
func (m *metadataCache) available(topic string) []int {
	var out []int
	for _, p := range m.parts {
		if p.TP.Topic == topic && p.Leader >= 0 {
			out = append(out, int(p.TP.Partition))
		}
	}
	return out
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
