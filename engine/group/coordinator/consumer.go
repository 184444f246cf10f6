package coordinator

import (
	"errors"
	"fmt"
	"slices"

	"github.com/loglab/loglab/engine/group/assignor"
	"github.com/loglab/loglab/engine/group/consumer"
	"github.com/loglab/loglab/engine/protocol"
)

type consumerMember = consumer.Member

// serverAssignor is group.remote.assignor's choice; uniform is the
// coordinator's default (group.consumer.assignors' first).
func serverAssignor(name string) (assignor.Assignor, bool) {
	switch name {
	case "", "uniform":
		return assignor.Uniform{}, true
	case "range":
		return assignor.ServerRange{}, true
	}
	return nil, false
}

// consumerHeartbeat is GroupMetadataManager.consumerGroupHeartbeat.
func (s *Shard) consumerHeartbeat(now int64, req Request, m protocol.ConsumerGroupHeartbeatRequest) Result {
	fail := func(c protocol.ErrorCode, msg string) Result {
		return Result{Replies: []Reply{{req.Ref, protocol.ConsumerGroupHeartbeatResponse{Error: c, ErrorMessage: msg,
			MemberID: m.MemberID, MemberEpoch: m.MemberEpoch}}}}
	}
	if m.GroupID == "" {
		return fail(protocol.InvalidGroupID, "GroupId can't be empty.")
	}
	var out Result
	e := s.consumer[m.GroupID]
	created := false
	if e == nil {
		if ce := s.classic[m.GroupID]; ce != nil {
			if len(ce.g.Members()) > 0 {
				// Online migration from a live classic group: not modelled.
				return fail(protocol.GroupIDNotFound, fmt.Sprintf("Group %s is not a consumer group.", m.GroupID))
			}
			// An empty classic group is replaced by the consumer group
			// (Kafka deletes it; its offsets stay).
			ce.g.Unload(now)
			delete(s.classic, m.GroupID)
			out.Records = append(out.Records, tombstone(groupMetadataKey(m.GroupID)))
		}
		if m.MemberEpoch != consumer.JoinGroupMemberEpoch {
			return fail(protocol.UnknownMemberID, fmt.Sprintf("Group %s not found.", m.GroupID))
		}
		a, ok := serverAssignor(m.ServerAssignor)
		if !ok {
			return fail(protocol.UnsupportedAssignor, fmt.Sprintf("ServerAssignor %s is not supported.", m.ServerAssignor))
		}
		e = &consumerEntry{g: consumer.NewGroup(m.GroupID, a, s.topics, s.cfg.Consumer), details: map[string]memberDetails{}}
		s.consumer[m.GroupID] = e
		created = true
	} else if _, ok := serverAssignor(m.ServerAssignor); !ok {
		return fail(protocol.UnsupportedAssignor, fmt.Sprintf("ServerAssignor %s is not supported.", m.ServerAssignor))
	}
	hr := consumer.HeartbeatRequest{MemberID: m.MemberID, MemberEpoch: m.MemberEpoch, InstanceID: m.InstanceID,
		RebalanceTimeoutMs: m.RebalanceTimeoutMs, SubscribedTopicNames: m.SubscribedTopicNames}
	if m.TopicPartitions != nil {
		hr.OwnedTopicPartitions = consumer.Partitions{}
		for _, tp := range m.TopicPartitions {
			hr.OwnedTopicPartitions[tp.Topic] = append(hr.OwnedTopicPartitions[tp.Topic], tp.Partitions...)
		}
	}
	var resp consumer.HeartbeatResponse
	var err error
	op := s.consumerOp(e, func() []string {
		resp, err = e.g.Heartbeat(now, hr)
		if err == nil && m.MemberEpoch == consumer.JoinGroupMemberEpoch {
			e.details[m.MemberID] = memberDetails{ClientID: req.Client, Host: "/" + req.Client, InstanceID: m.InstanceID,
				RackID: m.RackID, ServerAssignor: m.ServerAssignor}
		}
		if err == nil && resp.ReplacedMemberID != "" {
			return []string{fmt.Sprintf("group %s: static member %s (instance %s) takes the place of %s, with its partitions",
				m.GroupID, resp.MemberID, m.InstanceID, resp.ReplacedMemberID)}
		}
		return nil
	})
	out.add(op)
	if err != nil {
		if created && len(e.g.Members()) == 0 {
			// Kafka reverts the shard to before the failed request: the
			// group it created is gone again.
			delete(s.consumer, m.GroupID)
		}
		c, msg := consumerError(err)
		out.Events = append(out.Events, fmt.Sprintf("group %s: ConsumerGroupHeartbeat of %s at epoch %d answered %s: %s", m.GroupID, m.MemberID, m.MemberEpoch, c.Name(), msg))
		out.Replies = append(out.Replies, fail(c, msg).Replies...)
		return out
	}
	r := protocol.ConsumerGroupHeartbeatResponse{MemberID: resp.MemberID, MemberEpoch: resp.MemberEpoch,
		HeartbeatIntervalMs: resp.HeartbeatIntervalMs}
	if resp.Assignment != nil {
		r.HasAssignment = true
		r.Assignment = []protocol.TopicPartitions{}
		for _, t := range resp.Assignment.Topics() {
			r.Assignment = append(r.Assignment, protocol.TopicPartitions{Topic: t, Partitions: slices.Clone(resp.Assignment[t])})
		}
	}
	out.Replies = append(out.Replies, Reply{req.Ref, r})
	return out
}

// consumerError maps the state machine's errors to Kafka's codes.
func consumerError(err error) (protocol.ErrorCode, string) {
	switch {
	case errors.Is(err, consumer.ErrFencedMemberEpoch):
		return protocol.FencedMemberEpoch, err.Error()
	case errors.Is(err, consumer.ErrUnknownMemberID):
		return protocol.UnknownMemberID, err.Error()
	case errors.Is(err, consumer.ErrUnreleasedInstanceID):
		return protocol.UnreleasedInstanceID, err.Error()
	case errors.Is(err, consumer.ErrFencedInstanceID):
		return protocol.FencedInstanceID, err.Error()
	}
	// INVALID_REQUEST, and what loglab does not model (said in the message).
	return protocol.InvalidRequest, err.Error()
}

// consumerExpire runs a group's session and rebalance timeouts.
func (s *Shard) consumerExpire(now int64, e *consumerEntry) Result {
	return s.consumerOp(e, func() []string {
		var lines []string
		for _, x := range e.g.Expire(now) {
			lines = append(lines, fmt.Sprintf("group %s: member %s fenced: %s", e.g.ID(), x.MemberID, x.Reason))
			delete(e.details, x.MemberID)
		}
		return lines
	})
}
