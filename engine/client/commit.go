package client

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/loglab/loglab/engine/protocol"
)

// defaultAPITimeout is default.api.timeout.ms (60 s): how long commitSync
// retries retriable errors before it throws a TimeoutException.
const defaultAPITimeout = 60 * time.Second

// The commit exceptions Kafka's consumer throws, with their messages.
var (
	// ErrCommitFailed is CommitFailedException: the member is no longer
	// in the generation it commits for (kicked out of the group).
	ErrCommitFailed = errors.New("CommitFailedException: Commit cannot be completed since the group has already rebalanced " +
		"and assigned the partitions to another member. This means that the time between subsequent calls to poll() was " +
		"longer than the configured max.poll.interval.ms, which typically implies that the poll loop is spending too much " +
		"time message processing. You can address this either by increasing max.poll.interval.ms or by reducing the " +
		"maximum size of batches returned in poll() with max.poll.records.")
	// ErrRebalanceInProgress is RebalanceInProgressException from a
	// commit whose generation a rebalance is replacing.
	ErrRebalanceInProgress = errors.New("RebalanceInProgressException: Offset commit cannot be completed since the consumer " +
		"member's generation is already stale, meaning it has already participated another rebalance and got a new " +
		"generation. You can try completing the rebalance by calling poll() and then retry commit again.")
	// ErrNoGroupID is InvalidGroupIdException from a commit without group.id.
	ErrNoGroupID = errors.New("InvalidGroupIdException: To use the group management or offset commit APIs, you must " +
		"provide a valid group.id in the consumer configuration.")
)

// errRebalancing is ConsumerCoordinator.sendOffsetCommitRequest's refusal
// while the member is between generations.
var errRebalancing = errors.New("RebalanceInProgressException: Offset commit cannot be completed since the consumer is " +
	"undergoing a rebalance for auto partition assignment. You can try completing the rebalance by calling poll() and " +
	"then retry the operation.")

// errNotInGroup is its refusal when the member is in no generation at all.
var errNotInGroup = errors.New("CommitFailedException: Offset commit cannot be completed since the consumer is not part " +
	"of an active group for auto partition assignment; it is likely that the consumer was kicked out of the group.")

// retriableCommitError is RetriableCommitFailedException: commitAsync
// does not retry; the caller may commit again.
type retriableCommitError struct{ code protocol.ErrorCode }

func (e retriableCommitError) Error() string {
	return "RetriableCommitFailedException: Offset commit failed with a retriable exception. You should retry committing " +
		"the latest consumed offsets. Caused by: " + e.code.Name()
}

func isRetriableCommit(err error) bool {
	var r retriableCommitError
	return errors.As(err, &r)
}

// Commit is one OffsetCommit the consumer makes (commitSync, commitAsync,
// auto-commit): the engine runs until Done, then Err is its outcome.
type Commit struct {
	Offsets []protocol.OffsetCommitPartition
	Sync    bool
	Source  string // "commitSync", "commitAsync", "auto-commit", "revocation", "close"
	Done    bool
	Err     error

	corr     int64 // 0: not in flight
	deadline time.Duration
	onDone   func()
}

// CommitSync commits offsets (nil: the positions of everything consumed so
// far, Kafka's allConsumed) and retries retriable errors for
// default.api.timeout.ms, as KafkaConsumer.commitSync blocks. The engine
// runs until the returned commit is Done.
func (c *Consumer) CommitSync(offsets []protocol.OffsetCommitPartition) *Commit {
	if offsets == nil {
		offsets = c.consumedOffsets(nil)
	}
	return c.commit(offsets, true, "commitSync")
}

// CommitAsync commits like CommitSync but fails at the first error
// (RetriableCommitFailedException for a retriable one), as commitAsync.
func (c *Consumer) CommitAsync(offsets []protocol.OffsetCommitPartition) *Commit {
	if offsets == nil {
		offsets = c.consumedOffsets(nil)
	}
	return c.commit(offsets, false, "commitAsync")
}

// consumedOffsets is SubscriptionState.allConsumed: the position of every
// assigned partition (of only tps if given) that has one, with the leader
// epoch of the last record consumed.
func (c *Consumer) consumedOffsets(tps []protocol.TopicPartition) []protocol.OffsetCommitPartition {
	var out []protocol.OffsetCommitPartition
	for _, a := range c.assign {
		if a.position < 0 || (tps != nil && !containsTP(tps, a.tp)) {
			continue
		}
		out = append(out, protocol.OffsetCommitPartition{TP: a.tp, Offset: a.position, LeaderEpoch: a.lastEpoch})
	}
	return out
}

func containsTP(tps []protocol.TopicPartition, tp protocol.TopicPartition) bool {
	for _, t := range tps {
		if t == tp {
			return true
		}
	}
	return false
}

func (c *Consumer) commit(offsets []protocol.OffsetCommitPartition, sync bool, source string) *Commit {
	return c.commitWithin(offsets, sync, source, defaultAPITimeout)
}

// closeTimeout is close()'s default timeout (30 s): its auto-commit gets
// no longer, where commitSync gets default.api.timeout.ms.
const closeTimeout = 30 * time.Second

// commitWithin is commit with a sync commit's timeout.
func (c *Consumer) commitWithin(offsets []protocol.OffsetCommitPartition, sync bool, source string, timeout time.Duration) *Commit {
	h := &Commit{Offsets: offsets, Sync: sync, Source: source, deadline: c.now() + timeout}
	switch {
	case c.closed || c.crashed:
		c.finishCommit(h, ErrConsumerClosed)
		return h
	case c.cfg.GroupID == "":
		c.finishCommit(h, ErrNoGroupID)
		return h
	case len(offsets) == 0:
		// Kafka answers an empty commit at once, sending nothing.
		c.finishCommit(h, nil)
		return h
	}
	c.commits = append(c.commits, h)
	if sync {
		c.sched.After(timeout, "commit-timeout "+string(c.ID), func() {
			if !h.Done {
				c.dropCommit(h)
				c.finishCommit(h, fmt.Errorf("%s: Timeout of %dms expired before successfully committing offsets %s",
					protocol.TimeoutExceptionClass, timeout.Milliseconds(), offsetsText(h.Offsets)))
			}
		})
	}
	c.sendPendingCommits()
	return h
}

// sendPendingCommits sends the commits that wait for a coordinator.
func (c *Consumer) sendPendingCommits() {
	g := c.group
	if g == nil {
		return
	}
	for _, h := range append([]*Commit(nil), c.commits...) {
		if h.corr != 0 || h.Done {
			continue
		}
		if !g.ensureCoordinator() {
			return
		}
		gen, member, err := g.commitIdentity()
		if err != nil {
			c.dropCommit(h)
			c.finishCommit(h, err)
			continue
		}
		c.corr++
		h.corr = c.corr
		req := protocol.OffsetCommitRequest{CorrelationID: h.corr, GroupID: c.cfg.GroupID, GenerationIDOrMemberEpoch: gen,
			MemberID: member, GroupInstanceID: c.cfg.GroupInstanceID, Offsets: h.Offsets}
		g.send("OffsetCommit", h.corr, req, consumerRequestTimeout, func(code protocol.ErrorCode) {
			h.corr = 0
			c.commitRetriable(h, code)
		})
	}
}

// commitRetriable: commitSync tries again (after the coordinator is found
// again); commitAsync and auto-commit fail with
// RetriableCommitFailedException.
func (c *Consumer) commitRetriable(h *Commit, code protocol.ErrorCode) {
	if h.Sync && c.now() < h.deadline {
		c.sched.After(DefaultRetryBackoff, "commit-retry "+string(c.ID), c.sendPendingCommits)
		return
	}
	c.dropCommit(h)
	c.finishCommit(h, retriableCommitError{code: code})
}

func (c *Consumer) dropCommit(h *Commit) {
	for i, x := range c.commits {
		if x == h {
			c.commits = append(c.commits[:i], c.commits[i+1:]...)
			return
		}
	}
}

func (c *Consumer) finishCommit(h *Commit, err error) {
	if h.Done {
		return
	}
	h.Done, h.Err = true, err
	if err != nil {
		c.commitsFailed++
		if len(h.Offsets) > 0 {
			c.events(fmt.Sprintf("%s: %s of offsets %s failed: %s", c.ID, h.Source, offsetsText(h.Offsets), shortErr(err)))
		}
	} else if len(h.Offsets) > 0 {
		c.commitsDone++
	}
	if h.onDone != nil {
		h.onDone()
	}
}

// shortErr is an exception's class and Kafka error, without the advice.
func shortErr(err error) string {
	s := err.Error()
	if i := strings.Index(s, ": "); i > 0 && strings.HasSuffix(s[:i], "Exception") {
		if r, ok := err.(retriableCommitError); ok {
			return s[:i] + " (" + r.code.Name() + ")"
		}
		return s[:i]
	}
	return s
}

func offsetsText(offsets []protocol.OffsetCommitPartition) string {
	var b strings.Builder
	for i, o := range offsets {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s/%d=%d", o.TP.Topic, o.TP.Partition, o.Offset)
	}
	return b.String()
}

func (c *Consumer) onOffsetCommit(m protocol.OffsetCommitResponse) {
	g := c.group
	if g.take(m.CorrelationID) == nil {
		return
	}
	var h *Commit
	for _, x := range c.commits {
		if x.corr == m.CorrelationID {
			h = x
		}
	}
	if h == nil {
		return
	}
	h.corr = 0
	code := protocol.None
	for _, p := range m.Partitions {
		if p.Error != protocol.None {
			code = p.Error
			break
		}
	}
	switch code {
	case protocol.None:
		c.dropCommit(h)
		for _, o := range h.Offsets {
			c.setCommitted(o.TP, o.Offset)
		}
		c.events(fmt.Sprintf("%s: committed offsets %s (%s)", c.ID, offsetsText(h.Offsets), h.Source))
		c.finishCommit(h, nil)
		return
	case protocol.NotCoordinator, protocol.CoordinatorNotAvailable, protocol.RequestTimedOut:
		g.markCoordinatorUnknown(code.Name(), code)
		c.commitRetriable(h, code)
		return
	case protocol.CoordinatorLoadInProgress, protocol.UnknownTopicOrPartition:
		c.commitRetriable(h, code)
		return
	case protocol.StaleMemberEpoch:
		// The async consumer retries a commitSync with the member's new
		// epoch; an async commit fails.
		c.commitRetriable(h, code)
		return
	}
	c.dropCommit(h)
	var err error
	switch code {
	case protocol.RebalanceInProgress:
		err = ErrRebalanceInProgress
	case protocol.UnknownMemberID, protocol.IllegalGeneration:
		if cm, ok := g.proto.(*classicMember); ok {
			cm.resetGeneration("offset commit failed with " + code.Name())
		}
		err = ErrCommitFailed
	case protocol.FencedInstanceID:
		err = fmt.Errorf("FencedInstanceIdException: %s", code.Name())
		g.fatal = err
	default:
		err = fmt.Errorf("%s", code.Name())
	}
	c.finishCommit(h, err)
}

// committed is a partition's last committed offset this consumer knows of
// (committed by it, or read by OffsetFetch).
type committed struct {
	tp     protocol.TopicPartition
	offset int64
}

func (c *Consumer) setCommitted(tp protocol.TopicPartition, off int64) {
	for i := range c.committed {
		if c.committed[i].tp == tp {
			c.committed[i].offset = off
			return
		}
	}
	c.committed = append(c.committed, committed{tp, off})
	sortCommitted(c.committed)
}

func sortCommitted(cs []committed) {
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && tpLess(cs[j].tp, cs[j-1].tp); j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
}

func tpLess(a, b protocol.TopicPartition) bool {
	if a.Topic != b.Topic {
		return a.Topic < b.Topic
	}
	return a.Partition < b.Partition
}

// Committed is the last committed offset of tp this consumer knows (its own
// commits and what OffsetFetch returned), false when none.
func (c *Consumer) Committed(tp protocol.TopicPartition) (int64, bool) {
	for _, x := range c.committed {
		if x.tp == tp {
			return x.offset, true
		}
	}
	return -1, false
}

// CommittedOffsets lists every committed offset this consumer knows, by
// topic and partition.
func (c *Consumer) CommittedOffsets() []protocol.OffsetCommitPartition {
	out := make([]protocol.OffsetCommitPartition, len(c.committed))
	for i, x := range c.committed {
		out[i] = protocol.OffsetCommitPartition{TP: x.tp, Offset: x.offset, LeaderEpoch: -1}
	}
	return out
}

// fetchCommittedIfNeeded is ConsumerCoordinator.refreshCommittedOffsets:
// newly assigned partitions start from their committed offset, asked with
// one OffsetFetch; those without one are reset by auto.offset.reset.
func (c *Consumer) fetchCommittedIfNeeded() {
	g := c.group
	if g == nil || c.offsetFetchCorr != 0 || c.offsetFetchBackoff {
		return
	}
	var tps []protocol.TopicPartition
	for _, a := range c.assign {
		if a.needCommitted {
			tps = append(tps, a.tp)
		}
	}
	if len(tps) == 0 || !g.ensureCoordinator() {
		return
	}
	c.corr++
	corr := c.corr
	c.offsetFetchCorr = corr
	req := protocol.OffsetFetchRequest{CorrelationID: corr, GroupID: c.cfg.GroupID, MemberID: "", MemberEpoch: -1, TPs: tps, RequireStable: true}
	if cm, ok := g.proto.(*consumerMember); ok {
		req.MemberID, req.MemberEpoch = cm.id, cm.memberEpoch
	}
	g.send("OffsetFetch", corr, req, consumerRequestTimeout, func(protocol.ErrorCode) {
		c.offsetFetchCorr = 0
	})
}

func (c *Consumer) onOffsetFetch(m protocol.OffsetFetchResponse) {
	if c.group.take(m.CorrelationID) == nil || m.CorrelationID != c.offsetFetchCorr {
		return
	}
	c.offsetFetchCorr = 0
	if m.Error != protocol.None {
		if !c.group.coordinatorError(m.Error) {
			// COORDINATOR_LOAD_IN_PROGRESS, UNSTABLE_OFFSET_COMMIT: ask again
			// after retry.backoff.ms.
			c.sched.After(DefaultRetryBackoff, "offset-fetch-retry "+string(c.ID), c.fetchCommittedIfNeeded)
		}
		return
	}
	var unstable []protocol.TopicPartition
	for _, p := range m.Partitions {
		a := c.find(p.TP)
		if a == nil || !a.needCommitted {
			continue
		}
		if p.Error == protocol.UnstableOffsetCommit {
			unstable = append(unstable, p.TP)
			continue
		}
		if p.Error != protocol.None {
			continue // asked again at the next poll
		}
		a.needCommitted = false
		if p.Offset >= 0 {
			a.position = p.Offset
			a.lastEpoch = p.LeaderEpoch
			c.setCommitted(p.TP, p.Offset)
			c.events(fmt.Sprintf("%s: setting offset for %s/%d to the committed offset %d", c.ID, p.TP.Topic, p.TP.Partition, p.Offset))
		} else {
			c.events(fmt.Sprintf("%s: found no committed offset for %s/%d", c.ID, p.TP.Topic, p.TP.Partition))
		}
	}
	if len(unstable) > 0 {
		// OffsetFetchResponseHandler: UnstableOffsetCommitException, retried
		// after retry.backoff.ms; the partitions are not fetched meanwhile.
		c.events(fmt.Sprintf("%s: the following partitions still have unstable offsets which are not cleared on the broker side: %s, "+
			"this could be either transactional offsets waiting for completion, or normal offsets waiting for replication after appending to local log",
			c.ID, partitionNames(unstable)))
		c.offsetFetchBackoff = true
		c.sched.After(DefaultRetryBackoff, "offset-fetch-retry "+string(c.ID), func() {
			c.offsetFetchBackoff = false
			c.fetchCommittedIfNeeded()
		})
	}
}
