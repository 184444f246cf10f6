package producerstate

import (
	"fmt"
	"slices"
)

// DefaultProducerIDExpirationMs is producer.id.expiration.ms's default
// (one day): how long the leader remembers an idle producer.
const DefaultProducerIDExpirationMs int64 = 86400000

// DefaultProducerIDExpirationCheckIntervalMs is
// producer.id.expiration.check.interval.ms's default: how often the broker
// calls RemoveExpired, so a producer may outlive its expiration by up to this.
const DefaultProducerIDExpirationCheckIntervalMs int64 = 600000

// Manager is one partition's producer state (ProducerStateManager).
type Manager struct {
	expirationMs int64
	producers    map[int64]*Entry
}

// NewManager makes an empty state that forgets producers idle for
// producerIDExpirationMs.
func NewManager(producerIDExpirationMs int64) *Manager {
	return &Manager{expirationMs: producerIDExpirationMs, producers: map[int64]*Entry{}}
}

// Entry is the state kept for a producer id (lastEntry).
func (m *Manager) Entry(pid int64) (Entry, bool) {
	e, ok := m.producers[pid]
	if !ok {
		return Entry{}, false
	}
	return e.clone(), true
}

// Producers is every producer's state, by producer id (the order
// kafka-transactions.sh describe-producers needs a stable one for).
func (m *Manager) Producers() []Entry {
	out := make([]Entry, 0, len(m.producers))
	for _, pid := range m.sortedIDs() {
		out = append(out, m.producers[pid].clone())
	}
	return out
}

func (m *Manager) sortedIDs() []int64 {
	ids := make([]int64, 0, len(m.producers))
	for pid := range m.producers {
		ids = append(ids, pid)
	}
	slices.Sort(ids)
	return ids
}

// Check answers what appending b would answer, changing nothing. A client
// batch that repeats one of the producer's last 5 batches (same epoch,
// same sequences) is a duplicate: the producer retried after losing the
// acknowledgement, and Kafka acknowledges it again with the original
// offsets instead of writing it twice (UnifiedLog's findDuplicateBatch
// before ProducerAppendInfo's checks).
func (m *Manager) Check(b Batch, origin Origin) Result {
	if b.ProducerID == NoProducerID {
		return Result{} // not idempotent: nothing to check or remember
	}
	cur, known := m.producers[b.ProducerID]
	if origin == Client && known && b.Marker == nil {
		if orig, dup := cur.FindDuplicateBatch(b.Epoch, b.FirstSeq, b.LastSeq); dup {
			return Result{Duplicate: true, Original: orig}
		}
	}
	base := emptyEntry(b.ProducerID)
	if known {
		base = *cur
	}
	return check(base, b, origin)
}

// Append checks b and, when it is accepted and not a duplicate, remembers
// it (prepareUpdate, append, update).
func (m *Manager) Append(b Batch, origin Origin) Result {
	r := m.Check(b, origin)
	if r.Err != nil || r.Duplicate || b.ProducerID == NoProducerID {
		return r
	}
	e := r.Entry.clone()
	m.producers[b.ProducerID] = &e
	return r
}

// ReplayError names the batch a replay stopped at.
type ReplayError struct {
	Offset int64
	Err    error
}

func (e *ReplayError) Error() string {
	return fmt.Sprintf("producer state: batch at offset %d: %v", e.Offset, e.Err)
}

func (e *ReplayError) Unwrap() error { return e.Err }

// Replay rebuilds the state from the log's batches in offset order, as a
// restarted broker or a new leader does from its last snapshot onwards
// (LogLoader / UnifiedLog.rebuildProducerState with the REPLICATION
// origin: nothing the leader accepted is refused again). Only a
// non-transactional batch inside an open transaction stops it, as in
// Kafka, where that check does not depend on the origin.
func (m *Manager) Replay(batches []Batch) error {
	for _, b := range batches {
		if r := m.Append(b, Replication); r.Err != nil {
			return &ReplayError{Offset: b.FirstOffset, Err: r.Err}
		}
	}
	return nil
}

// isExpired: idle for producer.id.expiration.ms and no transaction open.
// A producer with an open transaction is kept, whatever its age, so its
// epoch still fences and its transaction can still be completed.
func (m *Manager) isExpired(nowMs int64, e *Entry) bool {
	return !e.HasOngoingTxn() && nowMs-e.LastTimestamp >= m.expirationMs
}

// RemoveExpired forgets producers idle for producer.id.expiration.ms
// (removeExpiredProducers) and returns their ids in order. A forgotten
// producer's next batch is accepted with any sequence.
func (m *Manager) RemoveExpired(nowMs int64) []int64 {
	var gone []int64
	for _, pid := range m.sortedIDs() {
		if m.isExpired(nowMs, m.producers[pid]) {
			delete(m.producers, pid)
			gone = append(gone, pid)
		}
	}
	return gone
}

// Load replaces the state with snapshot entries, leaving out those already
// expired at nowMs (loadFromSnapshot).
func (m *Manager) Load(entries []Entry, nowMs int64) {
	m.producers = map[int64]*Entry{}
	for _, e := range entries {
		e := e.clone()
		if !m.isExpired(nowMs, &e) {
			m.producers[e.ProducerID] = &e
		}
	}
}

// FirstUndecidedOffset is the first offset of the oldest open transaction
// (firstUndecidedOffset), the bound of the last stable offset before
// replication is taken into account.
func (m *Manager) FirstUndecidedOffset() (int64, bool) {
	first, found := int64(0), false
	for _, pid := range m.sortedIDs() {
		e := m.producers[pid]
		if e.HasOngoingTxn() && (!found || e.CurrentTxnFirstOffset < first) {
			first, found = e.CurrentTxnFirstOffset, true
		}
	}
	return first, found
}
