package coordinator

import (
	"slices"

	"github.com/loglab/loglab/engine/group/assignor"
	"github.com/loglab/loglab/engine/group/classic"
	"github.com/loglab/loglab/engine/group/consumer"
	"github.com/loglab/loglab/engine/group/offsets"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// Config is the group coordinator's broker configuration, Kafka's keys.
type Config struct {
	Classic  classic.Config
	Consumer consumer.Config
	// OffsetsRetentionMs is offsets.retention.minutes: how long the
	// offsets of a group without members are kept.
	OffsetsRetentionMs int64
	// OffsetMetadataMaxBytes is offset.metadata.max.bytes.
	OffsetMetadataMaxBytes int
}

// DefaultConfig is Kafka 4.x's defaults.
func DefaultConfig() Config {
	return Config{Classic: classic.DefaultConfig(), Consumer: consumer.DefaultConfig(),
		OffsetsRetentionMs: 7 * 24 * 60 * 60 * 1000, OffsetMetadataMaxBytes: 4096}
}

// Request is one group request as the broker hands it over.
type Request struct {
	// Ref is the broker's handle for the request: a JoinGroup or
	// SyncGroup may be answered by a later call.
	Ref uint64
	// Client is the client's node name: its client.id, and its host as
	// "/"+Client.
	Client string
	// UUID is a fresh random id from the engine's seeded RNG, for a new
	// classic member id (<client.id>-<uuid>).
	UUID string
	// Msg is the protocol request (JoinGroupRequest, ...).
	Msg sim.Message
}

// Reply is a response to the request the broker knows by Ref; its
// CorrelationID is left for the broker to set (WithCorrelation).
type Reply struct {
	Ref uint64
	Msg sim.Message
}

// Result is what one call produced: records to append (in order, one
// batch), responses to send once they are committed, and trace lines.
type Result struct {
	Records []offsets.Record
	Replies []Reply
	Events  []string
	// Txn is set when Records are a transactional offset commit.
	Txn *TxnWrite
}

func (r *Result) add(o Result) {
	r.Records = append(r.Records, o.Records...)
	r.Replies = append(r.Replies, o.Replies...)
	r.Events = append(r.Events, o.Events...)
}

// committed is one committed position (Kafka's OffsetAndMetadata).
type committed struct {
	Offset          int64
	LeaderEpoch     int32
	Metadata        string
	CommitTimestamp int64
	ExpireTimestamp int64 // -1: none
	// RecordOffset is where its record is in the partition's log
	// (OffsetAndMetadata.recordOffset): a transaction's COMMIT marker
	// materializes its offset only over an older one.
	RecordOffset int64
}

// classicEntry is a classic group with what the shard writes about it.
type classicEntry struct {
	g *classic.Group
	// written is the generation of the last GroupMetadata record, -1
	// when none was written yet; writtenMembers its member ids.
	written        int32
	writtenMembers []string
	hosts          map[string]string // member id -> client host
}

// consumerEntry is a KIP-848 group with the member details the state
// machine does not keep but the records (and describe) carry.
type consumerEntry struct {
	g       *consumer.Group
	details map[string]memberDetails
}

type memberDetails struct {
	ClientID, Host, InstanceID, RackID, ServerAssignor string
}

// Shard is the coordinator state of one __consumer_offsets partition.
type Shard struct {
	Partition int32
	cfg       Config
	classic   map[string]*classicEntry
	consumer  map[string]*consumerEntry
	offsets   map[string]map[protocol.TopicPartition]committed
	topics    assignor.Topics
	topicIDs  map[[16]byte]string
	replay    *replayState // while loading
	loaded    bool
	// pendingTxn is pendingTransactionalOffsets: the offsets of
	// transactions not yet decided, by producer id.
	pendingTxn map[int64]groupOffsets
	// nextOffset is the log end offset the broker will append the next
	// result's records at (SetLogEndOffset).
	nextOffset int64
}

// New is an empty shard for a partition.
func New(partition int32, cfg Config) *Shard {
	return &Shard{Partition: partition, cfg: cfg, classic: map[string]*classicEntry{},
		consumer: map[string]*consumerEntry{}, offsets: map[string]map[protocol.TopicPartition]committed{},
		topics: assignor.Topics{}, topicIDs: map[[16]byte]string{}, pendingTxn: map[int64]groupOffsets{}}
}

// SetLogEndOffset tells the shard where the records of its next result
// will be appended, so the offsets it commits know their place in the
// log (their record offset).
func (s *Shard) SetLogEndOffset(o int64) { s.nextOffset = o }

// SetTopics gives the shard the cluster's topics (name -> partition
// count): KIP-848 groups assign from them and its records name topics by
// id.
func (s *Shard) SetTopics(topics assignor.Topics) {
	s.topics = assignor.Topics{}
	for name, n := range topics {
		s.topics[name] = n
		s.topicIDs[TopicID(name)] = name
	}
	for _, id := range s.consumerIDs() {
		s.consumer[id].g.SetTopics(s.topics)
	}
}

// Handle runs one group request at virtual time now (ms since the epoch).
func (s *Shard) Handle(now int64, req Request) Result {
	switch m := req.Msg.(type) {
	case protocol.JoinGroupRequest:
		return s.join(now, req, m)
	case protocol.SyncGroupRequest:
		return s.sync(now, req, m)
	case protocol.HeartbeatRequest:
		return s.heartbeat(now, req, m)
	case protocol.LeaveGroupRequest:
		return s.leave(now, req, m)
	case protocol.OffsetCommitRequest:
		return s.commit(now, req, m)
	case protocol.OffsetFetchRequest:
		return s.fetch(req, m)
	case protocol.TxnOffsetCommitRequest:
		return s.txnCommit(now, req, m)
	case protocol.ConsumerGroupHeartbeatRequest:
		return s.consumerHeartbeat(now, req, m)
	}
	return Result{}
}

// NextDeadline is when Tick must next run; false when no timer is due.
func (s *Shard) NextDeadline() (int64, bool) {
	var at int64
	ok := false
	consider := func(t int64, has bool) {
		if has && (!ok || t < at) {
			at, ok = t, true
		}
	}
	for _, id := range s.classicIDs() {
		consider(s.classic[id].g.NextDeadline())
	}
	for _, id := range s.consumerIDs() {
		consider(s.consumer[id].g.NextDeadline())
	}
	return at, ok
}

// Tick runs the groups' timers due at now: classic sessions, join and
// sync timeouts, KIP-848 session and rebalance timeouts.
func (s *Shard) Tick(now int64) Result {
	var out Result
	for _, id := range s.classicIDs() {
		e := s.classic[id]
		if at, ok := e.g.NextDeadline(); ok && at <= now {
			// GroupMetadataManager's timers log "has failed, removing it
			// from the group" for a member whose session or join expired.
			out.add(s.classicOp(now, e, "has failed, removing it from the group", func() []classic.Reply { return e.g.Tick(now) }))
		}
	}
	for _, id := range s.consumerIDs() {
		e := s.consumer[id]
		if at, ok := e.g.NextDeadline(); ok && at <= now {
			out.add(s.consumerExpire(now, e))
		}
	}
	return out
}

// Unload is the broker giving the partition up (it is no longer its
// leader, or it stops): parked classic requests are told NOT_COORDINATOR
// so their clients look the coordinator up again.
func (s *Shard) Unload(now int64) []Reply {
	var out []Reply
	for _, id := range s.classicIDs() {
		for _, r := range s.classic[id].g.Unload(now) {
			out = append(out, classicReply(r))
		}
	}
	return out
}

func (s *Shard) classicIDs() []string  { return sortedKeys(s.classic) }
func (s *Shard) consumerIDs() []string { return sortedKeys(s.consumer) }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func sortStrings(s []string) { slices.Sort(s) }
