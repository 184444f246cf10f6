package broker

import (
	"fmt"
	"slices"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/storage"
)

// What a broker does when its disk fails a write (ENOSPC, EIO), as Kafka's
// log-dir failure handling does: UnifiedLog's maybeHandleIOException
// reports the directory to the LogDirFailureChannel and the request is
// answered KAFKA_STORAGE_ERROR; ReplicaManager.handleLogDirFailure then
// stops serving the partitions in that directory (no fetcher, no
// leadership, HostedPartition.Offline), and the broker's next heartbeat
// names the directory offline, so the controller moves the leadership to
// another in-sync replica (ReplicationControlManager.handleDirectoriesOffline).
// The directory stays offline until the broker restarts; its recovery then
// cuts whatever half-written batch the failed write left.
//
// loglab takes only the partition whose write failed offline, as it does
// for a log it cannot open (docs/differences.md): Kafka takes the whole
// directory, and with a single log.dirs entry halts the broker.

// storageFailed says whether a log operation failed for the disk, and if
// so has the replica taken offline. what is Kafka's phrase for the
// operation ("appending records to"). The caller answers its request with
// appendError(err), KAFKA_STORAGE_ERROR; the replica is stopped just
// after, as Kafka's LogDirFailureHandler thread does it, so that no
// caller (a coordinator in the middle of a write, a loop over the
// replicas) sees it vanish under its feet. Meanwhile the log itself
// refuses every append (log.Log.DiskFailure).
func (b *Broker) storageFailed(r *Replica, what string, err error) bool {
	if !storage.IsDiskFailure(err) {
		return false
	}
	if !r.failing && !r.offline {
		r.failing = true
		b.events(fmt.Sprintf("%s: Error while %s %s-%d in dir %s: %v", b.Node, what, r.TP.Topic, r.TP.Partition, b.logDir(), err))
		b.after(0, "log-dir-failure", func() { b.failLogDir(r) })
	}
	return true
}

// failLogDir stops serving r on this broker and tells the controller
// (ReplicaManager.handleLogDirFailure).
func (b *Broker) failLogDir(r *Replica) {
	if r.offline {
		return
	}
	r.offline = true
	b.events(fmt.Sprintf("%s: Stopping serving replicas in dir %s because the log directory has failed: %s-%d is offline on this broker (KAFKA_STORAGE_ERROR) until it restarts",
		b.Node, b.logDir(), r.TP.Topic, r.TP.Partition))
	b.unloadCoordinator(r)
	b.unloadTxnCoordinator(r)
	r.leader = false
	r.followers = nil
	r.fetchGen++ // the fetcher is removed: a fetch in flight is not followed up
	r.fetchInFlight = false
	b.failProduces(r, protocol.KafkaStorageError)
	b.failFetches(r, protocol.KafkaStorageError)
	r.Log.Close()
	// A new slice, not a deletion in place: whoever iterates the old one
	// goes on undisturbed.
	b.replicas = slices.DeleteFunc(slices.Clone(b.replicas), func(x *Replica) bool { return x == r })
	b.offline = append(b.offline, r.TP)
	b.sendHeartbeat()
}

// logDir is the broker's log directory, as its events name it.
func (b *Broker) logDir() string { return fmt.Sprintf("broker-%d", b.ID) }

// isOffline says whether tp's log directory failed on this broker (or its
// log could not be opened): requests for it are answered
// KAFKA_STORAGE_ERROR, as ReplicaManager.getPartitionOrError does for
// HostedPartition.Offline.
func (b *Broker) isOffline(tp protocol.TopicPartition) bool { return slices.Contains(b.offline, tp) }
