package broker

import (
	"math/rand/v2"

	"github.com/loglab/loglab/engine/kraft/raft"
	"github.com/loglab/loglab/engine/protocol"
)

// A Kafka 4.x broker is an observer of the metadata log: it fetches
// __cluster_metadata from the quorum's leader like a follower, but never
// votes, and replays what the high watermark passed into its image
// (BrokerMetadataListener). Cut off from the controllers it falls behind
// and acts on stale metadata; back, it catches up, by snapshot if the
// leader's log no longer holds what it missed.

// observerListener hands the observer's commits to the broker.
type observerListener struct{ b *Broker }

func (o observerListener) Commit(entries []protocol.MetadataEntry) {
	recs := make([]protocol.MetadataRecord, len(entries))
	for i, e := range entries {
		recs[i] = e.Record
	}
	o.b.applyMetadata(recs)
}

func (o observerListener) LoadSnapshot(snap raft.Snapshot) {
	o.b.applySnapshot(snap.Records, snap.ID.EndOffset-1)
}

func (o observerListener) LeaderChange(leader, epoch int32) {}

func (o observerListener) SnapshotRecords() []protocol.MetadataRecord { return nil }

// ObserveMetadata starts this broker's observer of the metadata log.
// Difference from Kafka: a broker keeps its copy of __cluster_metadata in
// memory only; a restarted broker fetches it again from the start (or the
// leader's snapshot), where Kafka's reads its own copy from disk first.
func (b *Broker) ObserveMetadata(cfg raft.Config, rng *rand.Rand) error {
	cfg.SnapshotEvery = 0
	b.observer = raft.NewNode(cfg, b.net, b.sched, rng, raft.NewMemStore(), observerListener{b}, b.events)
	return b.observer.Start()
}

// MetadataObserver is the broker's observer of the metadata log, nil when
// the controllers push metadata instead (controllers in other processes).
func (b *Broker) MetadataObserver() *raft.Node { return b.observer }
