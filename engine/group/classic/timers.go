package classic

import (
	"cmp"
	"slices"
)

// The coordinator's timers (Kafka's CoordinatorTimer keys): one join-phase
// timer and one sync timer per group, one heartbeat timer per member.
// Scheduling a key again replaces its timer, as Kafka's timer does.
const (
	joinKey = "join"
	syncKey = "sync"
)

func heartbeatKey(memberID string) string { return "heartbeat/" + memberID }

type timer struct {
	key  string
	at   int64
	seq  uint64
	fire func(now int64)
}

// Timer is a scheduled coordinator timer, for display and tests.
type Timer struct {
	Key string
	At  int64
}

func (g *Group) schedule(key string, at int64, fire func(now int64)) {
	g.cancel(key)
	g.seq++
	g.timers = append(g.timers, &timer{key: key, at: at, seq: g.seq, fire: fire})
}

func (g *Group) cancel(key string) {
	for i, t := range g.timers {
		if t.key == key {
			g.timers = append(g.timers[:i], g.timers[i+1:]...)
			return
		}
	}
}

// Timers lists the pending timers, earliest first.
func (g *Group) Timers() []Timer {
	var out []Timer
	sorted := slices.Clone(g.timers)
	slices.SortFunc(sorted, func(a, b *timer) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.seq, b.seq)) })
	for _, t := range sorted {
		out = append(out, Timer{Key: t.key, At: t.at})
	}
	return out
}

// NextDeadline is when the caller must next call Tick; false when no
// timer is pending.
func (g *Group) NextDeadline() (int64, bool) {
	if t := g.next(1<<63 - 1); t != nil {
		return t.at, true
	}
	return 0, false
}

// Tick fires every timer due at or before now, earliest first (ties in
// scheduling order), and returns the responses they produced (parked
// JoinGroups and SyncGroups being answered). A timer runs at now, as
// Kafka's timer runs its task when it gets to it: timers it schedules
// count from now, so the caller should Tick at NextDeadline.
func (g *Group) Tick(now int64) []Reply {
	for t := g.next(now); t != nil; t = g.next(now) {
		g.cancel(t.key)
		t.fire(now)
	}
	return g.flush()
}

func before(a, b *timer) bool { return a.at < b.at || (a.at == b.at && a.seq < b.seq) }

func (g *Group) next(now int64) *timer {
	var best *timer
	for _, t := range g.timers {
		if t.at <= now && (best == nil || before(t, best)) {
			best = t
		}
	}
	return best
}

// rescheduleHeartbeat restarts a member's session: it is expired unless
// it heartbeats (or rejoins) within timeoutMs.
func (g *Group) rescheduleHeartbeat(now int64, m *Member, timeoutMs int64) {
	id := m.ID
	g.schedule(heartbeatKey(id), now+timeoutMs, func(at int64) { g.expireHeartbeat(at, id) })
}

// expireHeartbeat is a member's session timeout firing.
func (g *Group) expireHeartbeat(now int64, id string) {
	switch {
	case g.state == Dead:
	case contains(g.pendingJoin, id):
		// The member never came back with the id MEMBER_ID_REQUIRED gave
		// it: forget the id, and stop the join phase waiting for it.
		g.remove(id)
		if g.state == PreparingRebalance && g.hasAllMembersJoined() {
			g.completeJoinPhase(now)
		}
	default:
		m := g.member(id)
		if m == nil {
			return
		}
		// A member whose JoinGroup or SyncGroup is parked cannot
		// heartbeat, so that counts as alive; except a new member, whose
		// parked JoinGroup is bounded by the new-member join timeout,
		// because its client may have given up and retried already.
		if !m.isNew && (m.awaitingJoin() || m.awaitingSync()) {
			return
		}
		g.removeMemberAndUpdate(now, m)
	}
}

// removeMemberAndUpdate drops an expired member and moves the group on:
// a Stable or CompletingRebalance group rebalances without it; a group
// waiting only for it finishes its join phase.
func (g *Group) removeMemberAndUpdate(now int64, m *Member) {
	// Its JoinGroup may still be parked: answer it so a live client
	// rejoins from scratch.
	g.completeJoin(m, JoinResponse{Error: UnknownMemberID})
	g.remove(m.ID)
	switch {
	case g.state == Stable || g.state == CompletingRebalance:
		g.maybePrepareRebalanceOrCompleteJoin(now)
	case g.state == PreparingRebalance && g.hasAllMembersJoined():
		g.completeJoinPhase(now)
	}
}

// schedulePendingSync gives the members the rebalance timeout to send
// SyncGroup; whoever has not by then is removed and the group rebalances,
// so one dead member cannot hold the others' assignments back forever.
func (g *Group) schedulePendingSync(now int64) {
	gen := g.generation
	g.schedule(syncKey, now+g.rebalanceTimeoutMs(), func(at int64) { g.expirePendingSync(at, gen) })
}

func (g *Group) expirePendingSync(now int64, generation int32) {
	if generation != g.generation || (g.state != CompletingRebalance && g.state != Stable) || len(g.pendingSync) == 0 {
		return
	}
	for _, id := range append([]string(nil), g.pendingSync...) {
		g.remove(id)
	}
	g.prepareRebalance(now)
}

// scheduleJoinTimeout bounds the join phase by the rebalance timeout:
// members that have not rejoined by then are left behind.
func (g *Group) scheduleJoinTimeout(now int64) {
	g.schedule(joinKey, now+g.rebalanceTimeoutMs(), func(at int64) { g.completeJoinPhase(at) })
}

// initialDelay is an empty group's first rebalance waiting
// group.initial.rebalance.delay.ms, again and again while new members
// keep arriving, but never past the rebalance timeout in total.
func (g *Group) initialDelay(now, delayMs, remainingMs int64) {
	if g.newMemberAdded && remainingMs != 0 {
		g.newMemberAdded = false
		newDelay := min(g.cfg.InitialRebalanceDelayMs, remainingMs)
		newRemaining := max(remainingMs-delayMs, 0)
		g.schedule(joinKey, now+newDelay, func(at int64) { g.initialDelay(at, newDelay, newRemaining) })
		return
	}
	g.completeJoinPhase(now)
}
