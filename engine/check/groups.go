package check

import (
	"fmt"
	"slices"

	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/protocol"
)

// The consumer groups' safety invariants (issue 12 item 8):
//
//   - GroupOneOwner: no partition is owned by two members of a group at
//     once. Classic: two running clients at the same generation never
//     both hold it (a zombie of an older generation, kicked out and not
//     yet told, may: Kafka fences its commits by generation, not its
//     fetches). KIP-848: the coordinator never counts it in two members'
//     assigned or pending-revocation partitions (it assigns a partition
//     only once its previous owner released it), and two clients the
//     coordinator still counts as members never both hold it (the
//     coordinator is the one pickCoordinator names: a broker cut off from
//     the controllers may go on coordinating while the metadata names no
//     leader).
//   - CommittedOffsetMonotonic: a group's committed offset of a partition
//     never goes backwards, in the order its OffsetCommit records commit
//     in __consumer_offsets (below the high watermark: what an
//     acknowledged commit promises), unless the group had no members
//     when it was written (Kafka accepts any offset committed from
//     outside an empty group, generation -1: an admin's
//     --reset-offsets, a consumer using assign()), a member seeked back
//     (NoteSeek), an unclean election truncated the partition
//     (its consumers' auto.offset.reset then moves positions back), or
//     the offset was deleted (expiry's tombstone). And a coordinator,
//     typically a new one after a failover that replayed the log, never
//     shows a lower committed offset than the log committed.
const (
	GroupOneOwner            = "group-one-owner"
	CommittedOffsetMonotonic = "committed-offset-monotonic"
)

// groupWatch is the checker's memory of the groups.
type groupWatch struct {
	// scanned is, per __consumer_offsets partition, the next offset to
	// read below the high watermark.
	scanned map[int32]int64
	// committed is each group's newest committed offset per partition,
	// as the log's committed records give it.
	committed map[string]map[protocol.TopicPartition]int64
	// committedAt is where in __consumer_offsets each committed offset was
	// written; pendingTxn holds, per producer id, the transactional offset
	// commits waiting for their marker.
	committedAt map[string]map[protocol.TopicPartition]int64
	pendingTxn  map[int64][]pendingCommit
	// classicMembers and consumerMembers are each group's members as
	// its committed membership records give them (a classic group's
	// GroupMetadata, a KIP-848 group's member metadata records): a
	// commit written while a group has none came from outside it.
	classicMembers  map[string]int
	consumerMembers map[string]map[string]bool
	// seeks: partitions a member of a group moved back with seek(): the
	// next decrease of each is the application's choice.
	seeks map[string]map[protocol.TopicPartition]bool
	// described is, per group, the coordinator state its last
	// description was checked at; members are the member ids that
	// description counted.
	described map[string]coordState
	members   map[string][]string
}

func (k *Checker) groupWatch() *groupWatch {
	if k.groups == nil {
		k.groups = &groupWatch{scanned: map[int32]int64{}, committed: map[string]map[protocol.TopicPartition]int64{},
			committedAt: map[string]map[protocol.TopicPartition]int64{}, pendingTxn: map[int64][]pendingCommit{},
			classicMembers: map[string]int{}, consumerMembers: map[string]map[string]bool{}, seeks: map[string]map[protocol.TopicPartition]bool{}, described: map[string]coordState{}, members: map[string][]string{}}
	}
	return k.groups
}

// NoteSeek tells the checker a member of group moved its position in tp
// with KafkaConsumer.seek: a commit after it may go back, which Kafka
// allows (an application reprocessing), once.
func (k *Checker) NoteSeek(group string, tp protocol.TopicPartition) {
	if group == "" {
		return
	}
	w := k.groupWatch()
	if w.seeks[group] == nil {
		w.seeks[group] = map[protocol.TopicPartition]bool{}
	}
	w.seeks[group][tp] = true
}

// checkGroups runs the group invariants; cheap when there are none.
func (k *Checker) checkGroups() {
	if k.c.MetadataImage().Topic(broker.OffsetsTopic) == nil && !k.c.HasGroups() {
		return
	}
	w := k.groupWatch()
	k.scanCommittedOffsets(w)
	var groups []string
	byGroup := map[string][]*client.Consumer{}
	for _, co := range k.c.Consumers() {
		g := co.GroupID()
		if g == "" {
			continue
		}
		if _, ok := byGroup[g]; !ok {
			groups = append(groups, g)
		}
		if !co.Closed() {
			byGroup[g] = append(byGroup[g], co)
		}
	}
	for g := range w.committed {
		if _, ok := byGroup[g]; !ok {
			groups = append(groups, g) // committed by someone else (an admin, a raw client)
			byGroup[g] = nil
		}
	}
	slices.Sort(groups)
	for _, g := range groups {
		k.checkGroup(w, g, byGroup[g])
	}
}

func (k *Checker) checkGroup(w *groupWatch, group string, running []*client.Consumer) {
	var views []memberView
	if len(running) > 1 {
		for _, co := range running {
			views = append(views, memberView{Name: string(co.ID), MemberID: co.MemberID(), Generation: co.Generation(),
				Consumer: co.Config().GroupProtocol == client.GroupProtocolConsumer, Assignment: co.Assignment()})
		}
	}
	if state, b, ok := k.coordinatorState(group, w.described[group]); ok && w.described[group] != state {
		if desc, ok := b.DescribeGroup(group); ok {
			w.described[group] = state
			w.members[group] = w.members[group][:0]
			for _, m := range desc.Members {
				w.members[group] = append(w.members[group], m.MemberID)
			}
			for _, d := range coordinatorDoubleOwners(desc) {
				k.report(GroupOneOwner, d)
			}
			for _, d := range replayedBelowCommitted(desc, w.committed[group], k.offsetExcused(w, group), state) {
				k.report(CommittedOffsetMonotonic, d)
			}
		}
	}
	for _, d := range classicDoubleOwners(group, views, w.members[group]) {
		k.report(GroupOneOwner, d)
	}
	for _, d := range consumerDoubleOwners(group, views, w.members[group]) {
		k.report(GroupOneOwner, d)
	}
}

// coordState is where a group's coordinator is and how far it wrote:
// its description changes only with a write (or a load).
type coordState struct {
	broker    int
	epoch     int32
	logEnd    int64
	loaded    bool
	committed bool // the high watermark is at the log end: every write committed
}

func (s coordState) String() string {
	return fmt.Sprintf("b%d@%d:%d loaded=%t hw=%t", s.broker, s.epoch, s.logEnd, s.loaded, s.committed)
}

// coordinatorState finds the coordinator whose word on a group the
// checker takes (pickCoordinator) and where it stands; false when there
// is none. last is the state the group was last described at.
func (k *Checker) coordinatorState(group string, last coordState) (coordState, *broker.Broker, bool) {
	partition, leader := k.c.GroupCoordinator(group)
	if partition < 0 {
		return coordState{}, nil, false
	}
	tp := protocol.TopicPartition{Topic: broker.OffsetsTopic, Partition: partition}
	stateOf := func(b *broker.Broker) coordState {
		r := b.Replica(tp)
		return coordState{broker: int(b.ID), epoch: r.LeaderEpoch, logEnd: r.Log.EndOffset(),
			loaded: b.GroupShard(partition) != nil, committed: r.HW == r.Log.EndOffset()}
	}
	var named *coordState
	if leader != 0 && k.c.LeaderReplica(tp) != nil {
		s := stateOf(k.c.Broker(leader))
		named = &s
	}
	var leading []coordState
	for _, b := range k.c.Brokers() {
		if named != nil {
			break // pickCoordinator takes it
		}
		if !b.Alive() {
			continue
		}
		if r := b.Replica(tp); r != nil && r.IsLeader() && b.GroupShard(partition) != nil {
			leading = append(leading, stateOf(b))
		}
	}
	s, ok := pickCoordinator(named, leading, last)
	if !ok {
		return coordState{}, nil, false
	}
	return s, k.c.Broker(s.broker), true
}

// pickCoordinator chooses the coordinator of a group's __consumer_offsets
// partition whose members the checker counts: the leader the controller's
// metadata names, if it is up and leads (named); otherwise, among the live
// brokers that lead the partition in their own view with its shard loaded
// (leading), the one in the newest leader epoch, provided that epoch is
// not older than the one the group was last described in (last).
//
// A broker cut off from the controllers goes on leading on its last
// metadata after the controller fenced it and named no leader, or a
// leader that is down: Kafka's replica manager acts on the metadata it has
// (a leader learns it was deposed only from a newer epoch), and while its
// followers are cut off with it they keep fetching, so its high watermark
// moves and its group coordinator keeps answering: it expires sessions
// (GroupMetadataManager's session timeout, fencing the member and freeing
// its partitions at once) and assigns the freed partitions to others. Its
// members are the ones its clients hear from. One in an older epoch than
// the last described is a deposed coordinator whose successor already
// answered: its state is behind, so the last description stands.
func pickCoordinator(named *coordState, leading []coordState, last coordState) (coordState, bool) {
	if named != nil {
		return *named, true
	}
	var best *coordState
	for i, s := range leading {
		if s.epoch < last.epoch || (best != nil && s.epoch <= best.epoch) {
			continue
		}
		best = &leading[i]
	}
	if best == nil {
		return coordState{}, false
	}
	return *best, true
}
