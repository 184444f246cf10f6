package broker

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/log"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/replica"
)

// applyMetadata replays committed records in offset order. Records that
// skip ahead (an update lost to a partition) wait until the gap is filled
// by a heartbeat response: a broker never applies metadata out of order,
// so while it lags it acts on stale leadership, as a real one does.
//
// Like Kafka's metadata deltas, a batch of records is applied to the image
// first and the partitions it touched are reconciled once afterwards, so a
// broker catching up never acts on a leadership already superseded.
func (b *Broker) applyMetadata(records []protocol.MetadataRecord) {
	if !b.published {
		// Not acting on metadata yet: replay only, until this incarnation's
		// own registration is in (publishIfCaughtUp).
		for _, rec := range records {
			if rec.Offset == b.image.Offset+1 {
				b.image.Apply(rec)
			}
		}
		b.publishIfCaughtUp()
		return
	}
	var touched []protocol.TopicPartition
	var configs []string
	for _, rec := range records {
		if rec.Offset != b.image.Offset+1 {
			continue
		}
		b.image.Apply(rec)
		switch rec.Type {
		case "Partition", "PartitionChange":
			tp := protocol.TopicPartition{Topic: rec.Topic, Partition: rec.Partition}
			if !slices.Contains(touched, tp) {
				touched = append(touched, tp)
			}
		case "Config":
			if !slices.Contains(configs, rec.Topic) {
				configs = append(configs, rec.Topic)
			}
		}
	}
	for _, t := range configs {
		b.onConfig(t)
	}
	for _, tp := range touched {
		b.onPartitionChange(tp)
	}
}

// applySnapshot replaces the image with a metadata snapshot, as a broker
// too far behind the metadata log does, and acts on every partition.
func (b *Broker) applySnapshot(records []protocol.MetadataRecord, offset int64) {
	// The snapshot's end offset (the next record's), as the controllers'
	// events and the .checkpoint file name it.
	b.events(fmt.Sprintf("%s: the metadata it lacks was compacted: loading the snapshot at offset %d", b.Node, offset+1))
	b.image = kraft.ImageFromRecords(records, offset)
	if !b.published {
		b.publishIfCaughtUp()
		return
	}
	b.actOnWholeImage()
}

// publishIfCaughtUp starts acting on metadata once this incarnation has
// replayed its own registration record (its broker epoch is that
// record's offset), as Kafka's BrokerServer installs its metadata
// publishers only after the initial catch-up: by then the controller has
// fenced the previous incarnation and moved its leaderships, so a
// restarted broker never leads on what its predecessor was given.
func (b *Broker) publishIfCaughtUp() {
	if b.published || !b.registered || b.image.Offset < b.epoch {
		return
	}
	b.published = true
	b.actOnWholeImage()
}

// actOnWholeImage takes every hosted partition's role and every topic's
// configuration from the image.
func (b *Broker) actOnWholeImage() {
	for _, t := range b.image.Topics {
		b.onConfig(t.Name)
		for i := range t.Partitions {
			b.onPartitionChange(protocol.TopicPartition{Topic: t.Name, Partition: int32(i)})
		}
	}
}

// MetadataOffset is how far this broker has replayed the metadata log.
func (b *Broker) MetadataOffset() int64 { return b.image.Offset }

// onPartitionChange makes this broker leader or follower of a partition it
// hosts, per the image.
func (b *Broker) onPartitionChange(tp protocol.TopicPartition) {
	p := b.image.Partition(tp.Topic, tp.Partition)
	if p == nil || !slices.Contains(p.Replicas, b.ID) {
		return
	}
	if slices.Contains(b.offline, tp) {
		return // its log could not be opened: the controller knows, leads elsewhere
	}
	r := b.Replica(tp)
	if r == nil {
		var err error
		if r, err = b.openReplica(tp, p); err != nil {
			// Kafka marks the log directory offline (a KafkaStorageException
			// reading, e.g., a corrupt leader-epoch-checkpoint) and tells the
			// controller in its next heartbeat, which moves leadership away;
			// the broker serves none of it meanwhile. Heartbeat now, so the
			// controller hears of it at once.
			b.offline = append(b.offline, tp)
			b.events(fmt.Sprintf("%s: cannot open %s/%d, so it is offline on this broker: %v", b.Node, tp.Topic, tp.Partition, err))
			b.sendHeartbeat()
			return
		}
	}
	if i := slices.Index(b.damaged, tp); i >= 0 && !slices.Contains(p.ISR, b.ID) {
		// The controller took it out of the ISR: told, done. It may join
		// again once it has caught up with the leader.
		b.damaged = slices.Delete(b.damaged, i, i+1)
	}
	wasLeader, oldEpoch := r.leader, r.LeaderEpoch
	if p.LeaderEpoch < r.LeaderEpoch || (p.LeaderEpoch == r.LeaderEpoch && p.PartitionEpoch < r.PartitionEpoch) {
		// Stale: older than what this replica already knows, e.g. an ISR
		// its leader changed and learnt from the AlterPartition answer
		// before its metadata caught up (a snapshot from before the
		// change). Kafka's Partition.makeLeader skips it the same way.
		return
	}
	r.Replicas, r.ISR, r.PartitionEpoch = slices.Clone(p.Replicas), slices.Clone(p.ISR), p.PartitionEpoch
	newEpoch := p.LeaderEpoch != oldEpoch || p.Leader != r.Leader
	r.Leader, r.LeaderEpoch = p.Leader, p.LeaderEpoch
	switch {
	case p.Leader == b.ID && (!wasLeader || newEpoch):
		b.becomeLeader(r)
	case p.Leader != b.ID && (wasLeader || newEpoch):
		b.becomeFollower(r, wasLeader)
	case r.leader:
		// Same leadership, new ISR: the HW may move, waiting produces may finish.
		b.isrMetadataCommitted(r)
		r.pendingISR = nil
		if b.maybeIncrementHW(r) {
			b.onHWChange(r)
		}
		b.completeProduces(r)
	}
}

func (b *Broker) openReplica(tp protocol.TopicPartition, p *kraft.PartitionInfo) (*Replica, error) {
	t := b.image.Topic(tp.Topic)
	cfg := log.DefaultConfig()
	minISR := 1
	for _, kv := range t.Configs {
		if kv[0] == "min.insync.replicas" {
			minISR, _ = strconv.Atoi(kv[1])
			continue
		}
		if log.IsSetting(kv[0]) {
			if err := cfg.Set(kv[0], kv[1]); err != nil {
				return nil, err
			}
		}
	}
	l, rep, err := log.Open(b.fs, PartitionDir(b.ID, tp), cfg, 0)
	if err != nil {
		return nil, err
	}
	// Every repair is told, in Kafka's words: a truncation is data gone.
	for _, f := range rep.Findings {
		b.events(fmt.Sprintf("%s: %s", b.Node, f))
	}
	if rep.Truncated() {
		b.damaged = append(b.damaged, tp)
	}
	r := &Replica{TP: tp, Log: l, Leader: -2, LeaderEpoch: -1, MinISR: minISR}
	b.replicas = append(b.replicas, r)
	slices.SortFunc(b.replicas, func(x, y *Replica) int {
		if x.TP.Topic != y.TP.Topic {
			if x.TP.Topic < y.TP.Topic {
				return -1
			}
			return 1
		}
		return int(x.TP.Partition - y.TP.Partition)
	})
	return r, nil
}

func (b *Broker) onConfig(topic string) {
	t := b.image.Topic(topic)
	for _, r := range b.replicas {
		if r.TP.Topic != topic {
			continue
		}
		cfg := r.Log.Config()
		for _, kv := range t.Configs {
			if kv[0] == "min.insync.replicas" {
				r.MinISR, _ = strconv.Atoi(kv[1])
			} else if log.IsSetting(kv[0]) {
				cfg.Set(kv[0], kv[1])
			}
		}
		r.Log.SetConfig(cfg)
	}
}

// becomeLeader starts leading at the new epoch. The epoch begins at this
// broker's log end offset (the leader-epoch cache records it). A new
// leader starts every follower unknown and learns their positions from
// fetches; a broker that was already leader keeps them (Partition.makeLeader
// with isNewLeader=false, Replica.resetReplicaState). loglab's controller
// bumps the epoch only when the leader changes, so today every call here
// is a new leader; Kafka's also bumps it on some reassignments.
func (b *Broker) becomeLeader(r *Replica) {
	isNewLeader := !r.leader
	prev := r.followers
	r.leader = true
	r.fetchGen++ // stop following
	r.fetchInFlight = false
	r.pendingISR = nil
	r.leaderEpochStart = r.Log.EndOffset()
	r.Log.Epochs().Assign(r.LeaderEpoch, r.Log.EndOffset())
	r.followers = nil
	now := b.now()
	for _, id := range r.Replicas {
		if id == b.ID {
			continue
		}
		f := replica.NewFollower(id, now, false) // a replica new to the assignment: position unknown
		if i := slices.IndexFunc(prev, func(x replica.Follower) bool { return x.ID == id }); i >= 0 {
			f = prev[i]
		}
		r.followers = append(r.followers, replica.ResetFollower(f, now, r.leaderEpochStart, isNewLeader, slices.Contains(r.ISR, id)))
	}
	r.HW = min(r.HW, r.Log.EndOffset())
	b.events(fmt.Sprintf("%s: leader of %s/%d at epoch %d (log end %d, high watermark %d)", b.Node, r.TP.Topic, r.TP.Partition, r.LeaderEpoch, r.Log.EndOffset(), r.HW))
	b.loadCoordinator(r)
	b.loadTxnCoordinator(r)
	if b.maybeIncrementHW(r) {
		b.onHWChange(r)
	}
}

// becomeFollower follows the new leader (or no one, while there is none).
// Requests waiting on this broker as leader fail with NOT_LEADER_OR_FOLLOWER.
func (b *Broker) becomeFollower(r *Replica, wasLeader bool) {
	b.unloadCoordinator(r)
	b.unloadTxnCoordinator(r)
	r.leader = false
	r.followers = nil
	if wasLeader {
		b.failProduces(r, protocol.NotLeaderOrFollower)
		b.failFetches(r, protocol.NotLeaderOrFollower)
	}
	r.fetchGen++
	r.fetchInFlight = false
	if r.Leader >= 0 {
		b.fetchFromLeader(r)
	}
}

// storageEventMarks are what this broker's storage alarms say: a
// recovery's findings (Kafka's wording, engine/log) and a log it cannot
// open.
var storageEventMarks = []string{"Found invalid messages in log segment", "rebuilding index files", ": cannot open "}

// IsStorageEvent says whether an event is a storage alarm: a cluster that
// hides the chatter of its start-up still tells these.
func IsStorageEvent(text string) bool {
	return slices.ContainsFunc(storageEventMarks, func(m string) bool { return strings.Contains(text, m) })
}
