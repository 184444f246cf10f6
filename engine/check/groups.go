package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/group/coordinator"
	"github.com/loglab/loglab/engine/group/offsets"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/record"
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

// offsetExcused reports, for a group, which partitions may have gone
// back: every one while the group has no members (an admin may reset
// it), those a member seeked back, or those an unclean election truncated.
func (k *Checker) offsetExcused(w *groupWatch, group string) func(protocol.TopicPartition) bool {
	empty := w.empty(group)
	return func(tp protocol.TopicPartition) bool { return empty || k.unclean[tp] || w.seeks[group][tp] }
}

// scanCommittedOffsets reads what each __consumer_offsets partition's
// leader committed since the last scan (below its high watermark) and
// checks each group's committed offsets only move forward.
func (k *Checker) scanCommittedOffsets(w *groupWatch) {
	t := k.c.MetadataImage().Topic(broker.OffsetsTopic)
	if t == nil {
		return
	}
	for i := range t.Partitions {
		p := int32(i)
		r := k.c.LeaderReplica(protocol.TopicPartition{Topic: broker.OffsetsTopic, Partition: p})
		if r == nil {
			continue
		}
		from := max(w.scanned[p], r.Log.StartOffset())
		if from >= r.HW {
			continue
		}
		_ = r.Log.EachBatch(from, r.HW, func(b *record.Batch) bool {
			for _, v := range w.applyBatch(b, k.unclean) {
				k.report(CommittedOffsetMonotonic, v)
			}
			w.scanned[p] = b.NextOffset()
			return true
		})
		w.scanned[p] = max(w.scanned[p], r.HW)
	}
}

// applyBatch folds one committed __consumer_offsets batch into the watch.
// A transaction's offset commits (a transactional batch) count only once
// their producer's COMMIT marker is committed, and then only where no
// commit written later in the log has been applied already (Kafka's
// replayEndTransactionMarker); an ABORT drops them.
func (w *groupWatch) applyBatch(b *record.Batch, unclean map[protocol.TopicPartition]bool) []string {
	if b.IsControl() {
		pending := w.pendingTxn[b.ProducerID]
		delete(w.pendingTxn, b.ProducerID)
		if len(b.Records) == 0 {
			return nil
		}
		if m, err := record.ParseControlRecord(b.Records[0]); err != nil || m.Type != record.Commit {
			return nil
		}
		var out []string
		for _, pc := range pending {
			if key, ok := pc.d.Key.(*offsets.OffsetCommitKey); ok {
				tp := protocol.TopicPartition{Topic: key.Topic, Partition: key.Partition}
				if at, seen := w.committedAt[key.Group][tp]; seen && at > pc.at {
					continue // a later plain commit already decided this partition
				}
			}
			out = append(out, w.apply(pc.d, pc.at, unclean)...)
		}
		return out
	}
	var out []string
	for _, rec := range b.Records {
		d, err := offsets.Decode(rec.Key, rec.Value)
		if err != nil {
			continue
		}
		at := b.Offset(rec)
		if b.IsTransactional() {
			w.pendingTxn[b.ProducerID] = append(w.pendingTxn[b.ProducerID], pendingCommit{d: d, at: at})
			continue
		}
		out = append(out, w.apply(d, at, unclean)...)
	}
	return out
}

// pendingCommit is a transactional offset commit waiting for its marker.
type pendingCommit struct {
	d  offsets.Record
	at int64
}

// apply folds one committed __consumer_offsets record (at log offset at)
// into the watch and returns the violations it shows.
func (w *groupWatch) apply(d offsets.Record, at int64, unclean map[protocol.TopicPartition]bool) []string {
	switch key := d.Key.(type) {
	case *offsets.OffsetCommitKey:
		tp := protocol.TopicPartition{Topic: key.Topic, Partition: key.Partition}
		if d.Value == nil {
			delete(w.committed[key.Group], tp) // expired or deleted: the next commit starts afresh
			return nil
		}
		v, ok := d.Value.(*offsets.OffsetCommitValue)
		if !ok {
			return nil
		}
		if w.committed[key.Group] == nil {
			w.committed[key.Group] = map[protocol.TopicPartition]int64{}
		}
		if w.committedAt[key.Group] == nil {
			w.committedAt[key.Group] = map[protocol.TopicPartition]int64{}
		}
		prev, seen := w.committed[key.Group][tp]
		w.committed[key.Group][tp] = v.Offset
		w.committedAt[key.Group][tp] = at
		if seen && v.Offset < prev && w.seeks[key.Group][tp] {
			delete(w.seeks[key.Group], tp)
			return nil
		}
		if seen && v.Offset < prev && !w.empty(key.Group) && !unclean[tp] {
			return []string{fmt.Sprintf("group %s's committed offset of %s went back from %d to %d (__consumer_offsets record at offset %d)",
				key.Group, name(tp), prev, v.Offset, at)}
		}
	case *offsets.GroupMetadataKey:
		if v, ok := d.Value.(*offsets.GroupMetadataValue); ok {
			w.classicMembers[key.Group] = len(v.Members)
		} else {
			delete(w.classicMembers, key.Group) // the group was deleted
		}
	case *offsets.ConsumerGroupMetadataKey:
		if d.Value == nil {
			delete(w.consumerMembers, key.GroupID)
		}
	case *offsets.MemberKey:
		if key.RecordType != offsets.TypeConsumerGroupMemberMetadata {
			break
		}
		if d.Value == nil {
			delete(w.consumerMembers[key.GroupID], key.MemberID)
			break
		}
		if w.consumerMembers[key.GroupID] == nil {
			w.consumerMembers[key.GroupID] = map[string]bool{}
		}
		w.consumerMembers[key.GroupID][key.MemberID] = true
	}
	return nil
}

// empty reports whether group has no members in the committed log: the
// coordinator then accepts offsets committed from outside the group, as
// an admin's reset does (Kafka allows --reset-offsets only then).
func (w *groupWatch) empty(group string) bool {
	return w.classicMembers[group] == 0 && len(w.consumerMembers[group]) == 0
}

// memberView is a running group client as the checker sees it.
type memberView struct {
	Name, MemberID string
	Generation     int32 // classic generation, or KIP-848 member epoch
	Consumer       bool  // group.protocol=consumer
	Assignment     []protocol.TopicPartition
}

// classicDoubleOwners finds partitions two running classic members hold
// at the same generation: within a generation the leader's assignment
// (ConsumerCoordinator.onJoinComplete) gives each partition once, eager
// members revoke everything before they join and cooperative ones give a
// moved partition up a generation before its new owner gets it
// (CooperativeStickyAssignor's two rounds). A member at generation -1 is
// out of the group (it reset its generation) and is not compared, nor is
// one the coordinator no longer counts (members lists who it does): a
// static member replaced by a new process with its group.instance.id
// keeps the generation, and its partitions, until its next heartbeat
// answers FENCED_INSTANCE_ID (GroupMetadataManager's static member
// replacement: no rebalance, the same generation), a zombie Kafka fences
// by member id.
func classicDoubleOwners(group string, ms []memberView, members []string) []string {
	var out []string
	for i, a := range ms {
		if a.Consumer || a.Generation < 0 || !slices.Contains(members, a.MemberID) {
			continue
		}
		for _, b := range ms[i+1:] {
			if b.Consumer || b.Generation != a.Generation || !slices.Contains(members, b.MemberID) {
				continue
			}
			for _, tp := range a.Assignment {
				if slices.Contains(b.Assignment, tp) {
					out = append(out, fmt.Sprintf("%s is held by %s and %s of group %s, both at generation %d", name(tp), a.Name, b.Name, group, a.Generation))
				}
			}
		}
	}
	return out
}

// coordinatorDoubleOwners finds partitions a KIP-848 coordinator counts
// for two members (assigned or pending revocation): its reconciliation
// (CurrentAssignmentBuilder) keeps a partition another member still has
// to revoke out of the new owner's assignment until it is released.
func coordinatorDoubleOwners(d coordinator.GroupDescription) []string {
	if d.Type != "consumer" {
		return nil
	}
	owner := map[protocol.TopicPartition]string{}
	var out []string
	for _, m := range d.Members {
		for _, tp := range slices.Concat(m.Assigned, m.PendingRevocation) {
			if o, ok := owner[tp]; ok && o != m.MemberID {
				out = append(out, fmt.Sprintf("coordinator of group %s counts %s for members %s and %s at group epoch %d", d.GroupID, name(tp), o, m.MemberID, d.Epoch))
				continue
			}
			owner[tp] = m.MemberID
		}
	}
	return out
}

// consumerDoubleOwners finds partitions two running KIP-848 clients hold
// while the coordinator still counts both as members: a client gives a
// revoked partition up before it acknowledges (and so before anyone else
// gets it); only a member the coordinator fenced may still hold one.
func consumerDoubleOwners(group string, ms []memberView, members []string) []string {
	var out []string
	for i, a := range ms {
		if !a.Consumer || !slices.Contains(members, a.MemberID) {
			continue
		}
		for _, b := range ms[i+1:] {
			if !b.Consumer || !slices.Contains(members, b.MemberID) || b.MemberID == a.MemberID {
				continue
			}
			for _, tp := range a.Assignment {
				if slices.Contains(b.Assignment, tp) {
					out = append(out, fmt.Sprintf("%s is held by %s (epoch %d) and %s (epoch %d), both members of group %s", name(tp), a.Name, a.Generation, b.Name, b.Generation, group))
				}
			}
		}
	}
	return out
}

// replayedBelowCommitted compares a coordinator's committed offsets with
// what the log committed: a coordinator that replayed the log after a
// failover must show the same or higher (a higher one is a write not yet
// committed). A missing offset counts only when everything the
// coordinator wrote is committed, since an expiry's tombstone may be in
// flight.
func replayedBelowCommitted(d coordinator.GroupDescription, committed map[protocol.TopicPartition]int64, excused func(protocol.TopicPartition) bool, state coordState) []string {
	var tps []protocol.TopicPartition
	for tp := range committed {
		tps = append(tps, tp)
	}
	slices.SortFunc(tps, func(a, b protocol.TopicPartition) int { return strings.Compare(name(a), name(b)) })
	var out []string
	for _, tp := range tps {
		want := committed[tp]
		i := slices.IndexFunc(d.Offsets, func(o coordinator.CommittedOffset) bool { return o.TP == tp })
		switch {
		case excused(tp):
		case i < 0 && state.committed:
			out = append(out, fmt.Sprintf("coordinator of group %s (%s) lost the committed offset %d of %s", d.GroupID, state, want, name(tp)))
		case i >= 0 && d.Offsets[i].Offset < want:
			out = append(out, fmt.Sprintf("coordinator of group %s (%s) shows %s committed at %d, the log committed %d", d.GroupID, state, name(tp), d.Offsets[i].Offset, want))
		}
	}
	return out
}
