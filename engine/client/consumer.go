package client

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// ConsumerConfig is the consumer settings loglab models, Kafka's names.
type ConsumerConfig struct {
	MaxPollRecords  int           // max.poll.records (500)
	FetchMinBytes   int32         // fetch.min.bytes (1)
	FetchMaxWait    time.Duration // fetch.max.wait.ms (500 ms)
	FetchMaxBytes   int32         // max.partition.fetch.bytes (1 MiB)
	AutoOffsetReset string        // auto.offset.reset: latest (default), earliest, none
	// IsolationLevel is isolation.level: read_uncommitted (the default)
	// reads up to the high watermark, aborted transactions included;
	// read_committed reads up to the last stable offset and drops the
	// records of aborted transactions.
	IsolationLevel string

	// Group membership (none without GroupID).
	GroupID                     string   // group.id
	GroupProtocol               string   // group.protocol: classic (Kafka 4.0's default) or consumer (KIP-848)
	PartitionAssignmentStrategy []string // partition.assignment.strategy (classic): [range, cooperative-sticky]
	GroupRemoteAssignor         string   // group.remote.assignor (consumer): "" lets the broker choose (uniform)
	GroupInstanceID             string   // group.instance.id: "" for a dynamic member
	ClientID                    string   // client.id
	// EnableAutoCommit is enable.auto.commit: true by default, in effect
	// only with a group.id (Kafka turns it off without one).
	EnableAutoCommit   bool
	AutoCommitInterval time.Duration // auto.commit.interval.ms (5 s)
	SessionTimeout     time.Duration // session.timeout.ms (45 s; classic only)
	HeartbeatInterval  time.Duration // heartbeat.interval.ms (3 s; classic only)
	MaxPollInterval    time.Duration // max.poll.interval.ms (5 min)
}

// DefaultConsumerConfig is the Java consumer's defaults.
func DefaultConsumerConfig() ConsumerConfig {
	return ConsumerConfig{MaxPollRecords: 500, FetchMinBytes: 1, FetchMaxWait: 500 * time.Millisecond, FetchMaxBytes: 1 << 20, AutoOffsetReset: "latest",
		IsolationLevel: ReadUncommitted, GroupProtocol: GroupProtocolClassic, PartitionAssignmentStrategy: []string{"range", "cooperative-sticky"},
		EnableAutoCommit: true, AutoCommitInterval: 5 * time.Second, SessionTimeout: 45 * time.Second,
		HeartbeatInterval: 3 * time.Second, MaxPollInterval: 5 * time.Minute}
}

// Validate refuses what KafkaConsumer's constructor refuses.
func (cfg ConsumerConfig) Validate() error {
	if err := validateIsolationLevel(cfg.IsolationLevel); err != nil {
		return err
	}
	switch cfg.GroupProtocol {
	case GroupProtocolClassic, GroupProtocolConsumer:
	default:
		return fmt.Errorf("ConfigException: Invalid value %s for configuration group.protocol: must be classic or consumer", cfg.GroupProtocol)
	}
	for _, s := range cfg.PartitionAssignmentStrategy {
		if _, ok := assignorFor(s); !ok {
			return fmt.Errorf("ConfigException: Invalid value %s for configuration partition.assignment.strategy: range, roundrobin, sticky or cooperative-sticky", s)
		}
	}
	if cfg.GroupID == "" && cfg.GroupInstanceID != "" {
		return fmt.Errorf("InvalidConfigurationException: group.instance.id requires a group.id")
	}
	if cfg.GroupProtocol == GroupProtocolClassic && len(cfg.PartitionAssignmentStrategy) == 0 {
		return fmt.Errorf("ConfigException: partition.assignment.strategy is empty")
	}
	if cfg.HeartbeatInterval >= cfg.SessionTimeout {
		return fmt.Errorf("ConfigException: heartbeat.interval.ms must be lower than session.timeout.ms")
	}
	if cfg.GroupProtocol == GroupProtocolConsumer && cfg.GroupRemoteAssignor != "" &&
		cfg.GroupRemoteAssignor != "uniform" && cfg.GroupRemoteAssignor != "range" {
		return fmt.Errorf("ConfigException: group.remote.assignor=%s: the broker has uniform and range", cfg.GroupRemoteAssignor)
	}
	return nil
}

// ConsumedRecord is a record returned by Poll.
type ConsumedRecord struct {
	TP        protocol.TopicPartition
	Offset    int64
	Timestamp int64
	Key       []byte
	Value     []byte
	// LeaderEpoch is the partition leader epoch of the record's batch,
	// committed with the position after it.
	LeaderEpoch int32
}

// assignment is one partition this consumer reads, with its position.
type assignment struct {
	tp        protocol.TopicPartition
	position  int64 // -1: unknown, reset by auto.offset.reset
	fetching  bool
	resetting bool
	corr      int64
	buffered  []ConsumedRecord
	// fetchedEnd is where the position goes once buffered is consumed:
	// past the last batch the fetch returned, control batches and
	// aborted transactions included (CompletedFetch.nextFetchOffset).
	fetchedEnd int64
	err        protocol.ErrorCode
	// backingOff: a retry is scheduled; fetches wait for it rather than
	// start another chain of retries (each metadata update used to add
	// one, until a consumer of a dead leader retried every millisecond).
	backingOff bool
	// outOfRange is the OFFSET_OUT_OF_RANGE answer that sent the position
	// to auto.offset.reset (nil when none is pending), and skipped counts
	// the offsets such resets moved the position past while the leader
	// still held them. Kafka keeps no such count: the jump is silent, which
	// is the point a lesson makes by showing it.
	outOfRange *outOfRange
	skipped    int64

	paused        bool  // Pause: not fetched, nothing returned
	needCommitted bool  // group-assigned: the committed offset is asked first
	revoking      bool  // being revoked: not fetched, nothing returned (pending revocation)
	hw            int64 // the last high watermark a fetch answer gave (-1: none)
	lastEpoch     int32 // leader epoch of the last record consumed (-1: unknown)
	inLine        bool  // a fetch answer poll has not yet returned from (metrics.go)
}

// outOfRange is the position a leader refused and its log start offset in
// that answer: below it, retention had deleted the records.
type outOfRange struct{ position, logStart int64 }

// Consumer is a Kafka consumer, with manually assigned partitions (Assign)
// or a member of a consumer group (group.id and Subscribe, group*.go): it
// fetches from each leader from its position, reads only below the high
// watermark (below the last stable offset with isolation.level=
// read_committed, which also drops aborted transactions' records), and
// resets its position by auto.offset.reset when it has none (no committed
// offset, for a group) or it fell out of range.
//
// As in the Java consumer, nothing is fetched (and no position reset)
// outside Poll: Poll returns what earlier fetches buffered and sends the
// next fetches for partitions with nothing buffered and nothing in flight
// (KafkaConsumer.poll -> pollForFetches -> sendFetches). A consumer that
// is not polled reads nothing, so its position can fall behind retention.
type Consumer struct {
	ID     sim.NodeID
	cfg    ConsumerConfig
	net    *sim.Network
	sched  *sim.Scheduler
	meta   *metadataCache
	events func(string)
	stats  ConsumerMetrics // consumer-fetch-manager-metrics (metrics.go)
	assign []*assignment
	corr   int64

	group           *groupMember // nil without group.id
	closed, crashed bool
	commits         []*Commit // commits not yet answered
	committed       []committed
	offsetFetchCorr int64
	// offsetFetchBackoff: an OffsetFetch found unstable offsets (a
	// transaction is committing them); the next waits retry.backoff.ms.
	offsetFetchBackoff bool
	commitsDone        int
	commitsFailed      int
}

// NewConsumer attaches a consumer to the network.
func NewConsumer(id sim.NodeID, cfg ConsumerConfig, bootstrap []int32, net *sim.Network, sched *sim.Scheduler, rng *rand.Rand, events func(string)) *Consumer {
	c := &Consumer{ID: id, cfg: cfg, net: net, sched: sched, events: events}
	// retry.backoff.ms and retry.backoff.max.ms at the Java consumer's defaults.
	c.meta = newMetadataCache(id, net, sched, rng, bootstrap, exponentialBackoff{initial: DefaultRetryBackoff, max: DefaultRetryBackoffMax}, nil)
	if cfg.GroupID != "" {
		c.group = newGroupMember(c)
	}
	net.Attach(id, c.handle)
	return c
}

// Config is the consumer's configuration.
func (c *Consumer) Config() ConsumerConfig { return c.cfg }

// Assign sets the partitions to read (replacing any earlier assignment).
func (c *Consumer) Assign(tps []protocol.TopicPartition) {
	c.assign = nil
	for _, tp := range tps {
		// With a group.id, manually assigned partitions also start from
		// their committed offsets.
		c.assign = append(c.assign, &assignment{tp: tp, position: -1, hw: -1, lastEpoch: -1, fetchedEnd: -1, needCommitted: c.group != nil})
	}
	c.meta.refresh()
}

// Assignment lists the assigned partitions with their positions.
func (c *Consumer) Assignment() []protocol.TopicPartition {
	out := make([]protocol.TopicPartition, len(c.assign))
	for i, a := range c.assign {
		out[i] = a.tp
	}
	return out
}

// Position is where the next poll reads a partition from (-1: unknown).
func (c *Consumer) Position(tp protocol.TopicPartition) int64 {
	if a := c.find(tp); a != nil {
		return a.position
	}
	return -1
}

// SkippedByReset counts the records of a partition that auto.offset.reset,
// after an OFFSET_OUT_OF_RANGE, moved this consumer's position past
// although the leader still held them (latest jumps to the log end; the
// records retention had already deleted are not counted). Kafka's
// consumer logs the reset and nothing more; the lab counts what it cost.
func (c *Consumer) SkippedByReset(tp protocol.TopicPartition) int64 {
	if a := c.find(tp); a != nil {
		return a.skipped
	}
	return 0
}

// MetadataRequests counts the metadata requests this consumer sent.
func (c *Consumer) MetadataRequests() int { return c.meta.requests }

// Seek moves a partition's position. Like KafkaConsumer.seek it drops what
// was buffered for the partition and the answer to any fetch in flight,
// and fetches nothing: the next Poll does.
func (c *Consumer) Seek(tp protocol.TopicPartition, offset int64) error {
	a := c.find(tp)
	if a == nil {
		return fmt.Errorf("%s/%d is not assigned to %s", tp.Topic, tp.Partition, c.ID)
	}
	a.position, a.buffered, a.err, a.outOfRange, a.fetchedEnd = offset, nil, protocol.None, nil, -1
	a.fetching, a.resetting = false, false
	a.corr = -1 // ignore the answer to any fetch in flight
	return nil
}

func (c *Consumer) find(tp protocol.TopicPartition) *assignment {
	for _, a := range c.assign {
		if a.tp == tp {
			return a
		}
	}
	return nil
}

// Poll returns up to max buffered records (max.poll.records when max <= 0),
// in assignment order, advancing positions, and starts fetches (or
// position resets) for partitions with nothing buffered: the only place a
// consumer fetches. An error from a partition (such as OFFSET_OUT_OF_RANGE
// with auto.offset.reset=none) is returned once.
func (c *Consumer) Poll(max int) ([]ConsumedRecord, error) {
	if c.closed || c.crashed {
		return nil, ErrConsumerClosed
	}
	if max <= 0 {
		max = c.cfg.MaxPollRecords
	}
	if c.group != nil {
		if err := c.group.poll(); err != nil {
			return nil, err
		}
	}
	var out []ConsumedRecord
	for _, a := range c.assign {
		if a.paused || a.revoking || a.needCommitted {
			continue
		}
		if a.err != protocol.None {
			err := fmt.Errorf("%s/%d: %s", a.tp.Topic, a.tp.Partition, a.err.Name())
			a.err = protocol.None
			return out, err
		}
		n := min(len(a.buffered), max-len(out))
		out = append(out, a.buffered[:n]...)
		if n > 0 {
			a.position = a.buffered[n-1].Offset + 1
			a.lastEpoch = a.buffered[n-1].LeaderEpoch
		}
		a.buffered = a.buffered[n:]
		if len(a.buffered) == 0 && a.fetchedEnd >= 0 {
			// FetchCollector.fetchRecords: the position passes what the
			// application never sees (markers, aborted batches).
			if a.fetchedEnd > a.position {
				a.position = a.fetchedEnd
			}
			a.fetchedEnd = -1
		}
		c.returned(a, n)
	}
	c.fetchAll()
	return out, nil
}

func (c *Consumer) fetchAll() {
	for _, a := range c.assign {
		c.fetch(a)
	}
}

// retryLater keeps a from being fetched for the retry backoff (100 ms);
// the next Poll after it fetches again.
func (c *Consumer) retryLater(a *assignment) {
	if a.backingOff {
		return
	}
	a.backingOff = true
	c.sched.After(DefaultRetryBackoff, "retry "+string(c.ID), func() {
		a.backingOff = false
	})
}

func (c *Consumer) fetch(a *assignment) {
	if a.fetching || a.resetting || a.backingOff || len(a.buffered) > 0 || a.err != protocol.None || a.paused || a.revoking || a.needCommitted {
		return
	}
	leader, epoch := c.meta.leader(a.tp)
	if leader < 0 {
		c.meta.refresh()
		return
	}
	c.corr++
	a.corr = c.corr
	if a.position < 0 {
		c.reset(a, leader)
		return
	}
	a.fetching = true
	// LastFetchedEpoch -1: the consumer does not detect a truncated position
	// by leader epoch (KIP-320's validation after a leader change); a position
	// past the new leader's log end comes back as OFFSET_OUT_OF_RANGE.
	c.net.Send(c.ID, kraft.BrokerNode(leader), protocol.FetchRequest{CorrelationID: a.corr, ReplicaID: -1, TP: a.tp,
		FetchOffset: a.position, CurrentLeaderEpoch: epoch, LastFetchedEpoch: -1, MaxBytes: c.cfg.FetchMaxBytes,
		MinBytes: c.cfg.FetchMinBytes, MaxWaitMs: int32(c.cfg.FetchMaxWait.Milliseconds()), IsolationLevel: c.cfg.isolationLevel()})
	corr := a.corr
	c.sched.After(c.cfg.FetchMaxWait+30*time.Second, "fetch-timeout "+string(c.ID), func() {
		if a.fetching && a.corr == corr {
			a.fetching = false
			c.meta.refresh()
		}
	})
}

// reset finds a starting position by auto.offset.reset.
func (c *Consumer) reset(a *assignment, leader int32) {
	var ts int64
	switch c.cfg.AutoOffsetReset {
	case "earliest":
		ts = -2
	case "latest":
		ts = -1
	default:
		a.err = protocol.OffsetOutOfRange // NoOffsetForPartitionException
		return
	}
	a.resetting = true
	// A read_committed consumer's "latest" is the last stable offset
	// (ListOffsetsRequest with its isolation level).
	c.net.Send(c.ID, kraft.BrokerNode(leader), protocol.ListOffsetsRequest{CorrelationID: a.corr, TP: a.tp, Timestamp: ts,
		IsolationLevel: c.cfg.isolationLevel()})
	corr := a.corr
	c.sched.After(30*time.Second, "list-offsets-timeout "+string(c.ID), func() {
		if a.resetting && a.corr == corr {
			a.resetting = false
			c.meta.refresh()
		}
	})
}

func (c *Consumer) handle(env *sim.Envelope) {
	if c.closed || c.crashed {
		return
	}
	if c.group != nil && c.group.handle(env.Msg) {
		return
	}
	switch m := env.Msg.(type) {
	case protocol.MetadataResponse:
		c.meta.handle(m)
	case protocol.ListOffsetsResponse:
		a := c.find(m.TP)
		if a == nil || !a.resetting || a.corr != m.CorrelationID {
			return
		}
		a.resetting = false
		if m.Error != protocol.None {
			c.meta.refresh()
			c.retryLater(a)
			return
		}
		c.events(fmt.Sprintf("%s: %s/%d position reset to %d (auto.offset.reset=%s)", c.ID, a.tp.Topic, a.tp.Partition, m.Offset, c.cfg.AutoOffsetReset))
		if o := a.outOfRange; o != nil {
			a.skipped += max(0, m.Offset-max(o.position, o.logStart))
			a.outOfRange = nil
		}
		a.position = m.Offset
	case protocol.FetchResponse:
		c.onFetch(m)
	case sim.Disconnected:
		c.meta.disconnected(m.Peer)
		for _, a := range c.assign {
			if leader, _ := c.meta.leader(a.tp); kraft.BrokerNode(leader) == m.Peer && (a.fetching || a.resetting) {
				a.fetching, a.resetting = false, false
				a.corr = -1
				c.meta.refresh()
				c.retryLater(a)
			}
		}
	}
}

func (c *Consumer) onFetch(m protocol.FetchResponse) {
	a := c.find(m.TP)
	if a == nil || !a.fetching || a.corr != m.CorrelationID {
		return
	}
	a.fetching = false
	switch m.Error {
	case protocol.None:
		a.hw = m.HighWatermark
		if c.cfg.IsolationLevel == ReadCommitted {
			// A read_committed consumer's lag counts to the last stable
			// offset (FetchCollector updates it instead of the HW).
			a.hw = m.LastStableOffset
		}
	case protocol.OffsetOutOfRange:
		c.events(fmt.Sprintf("%s: %s/%d offset %d is out of range [%d, %d]", c.ID, a.tp.Topic, a.tp.Partition, a.position, m.LogStartOffset, m.HighWatermark))
		if c.cfg.AutoOffsetReset == "none" {
			// OffsetOutOfRangeException from the next poll; the position stays.
			a.err = protocol.OffsetOutOfRange
			return
		}
		a.outOfRange = &outOfRange{position: a.position, logStart: m.LogStartOffset}
		a.position = -1 // reset by auto.offset.reset at the next poll
		return
	default:
		c.meta.refresh()
		c.retryLater(a)
		return
	}
	a.inLine = true // its lag is recorded at the next poll (metrics.go)
	a.buffered, a.fetchedEnd = completedFetch(a.tp, m.Records, a.position, c.cfg.IsolationLevel == ReadCommitted, m.AbortedTransactions)
}

// Buffered counts records fetched but not yet polled.
func (c *Consumer) Buffered() int {
	n := 0
	for _, a := range c.assign {
		n += len(a.buffered)
	}
	return n
}
