package coordinator

import (
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// IsGroupRequest says whether a message is one of the requests a group
// coordinator serves (everything but FindCoordinator).
func IsGroupRequest(m sim.Message) bool {
	_, ok := GroupID(m)
	return ok
}

// GroupID is the group a coordinator request names.
func GroupID(m sim.Message) (string, bool) {
	switch r := m.(type) {
	case protocol.JoinGroupRequest:
		return r.GroupID, true
	case protocol.SyncGroupRequest:
		return r.GroupID, true
	case protocol.HeartbeatRequest:
		return r.GroupID, true
	case protocol.LeaveGroupRequest:
		return r.GroupID, true
	case protocol.OffsetCommitRequest:
		return r.GroupID, true
	case protocol.OffsetFetchRequest:
		return r.GroupID, true
	case protocol.ConsumerGroupHeartbeatRequest:
		return r.GroupID, true
	case protocol.TxnOffsetCommitRequest:
		return r.GroupID, true
	}
	return "", false
}

// CorrelationID is a coordinator request's correlation id.
func CorrelationID(m sim.Message) int64 {
	switch r := m.(type) {
	case protocol.JoinGroupRequest:
		return r.CorrelationID
	case protocol.SyncGroupRequest:
		return r.CorrelationID
	case protocol.HeartbeatRequest:
		return r.CorrelationID
	case protocol.LeaveGroupRequest:
		return r.CorrelationID
	case protocol.OffsetCommitRequest:
		return r.CorrelationID
	case protocol.OffsetFetchRequest:
		return r.CorrelationID
	case protocol.ConsumerGroupHeartbeatRequest:
		return r.CorrelationID
	case protocol.TxnOffsetCommitRequest:
		return r.CorrelationID
	}
	return 0
}

// WithCorrelation sets a response's correlation id.
func WithCorrelation(m sim.Message, id int64) sim.Message {
	switch r := m.(type) {
	case protocol.JoinGroupResponse:
		r.CorrelationID = id
		return r
	case protocol.SyncGroupResponse:
		r.CorrelationID = id
		return r
	case protocol.HeartbeatResponse:
		r.CorrelationID = id
		return r
	case protocol.LeaveGroupResponse:
		r.CorrelationID = id
		return r
	case protocol.OffsetCommitResponse:
		r.CorrelationID = id
		return r
	case protocol.OffsetFetchResponse:
		r.CorrelationID = id
		return r
	case protocol.ConsumerGroupHeartbeatResponse:
		r.CorrelationID = id
		return r
	case protocol.TxnOffsetCommitResponse:
		r.CorrelationID = id
		return r
	}
	return m
}

// ErrorResponse is the response to a request failing as a whole with c
// (NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS, ...), correlation id set.
func ErrorResponse(m sim.Message, c protocol.ErrorCode) sim.Message {
	var out sim.Message
	switch r := m.(type) {
	case protocol.JoinGroupRequest:
		out = protocol.JoinGroupResponse{Error: c, GenerationID: -1, MemberID: r.MemberID}
	case protocol.SyncGroupRequest:
		out = protocol.SyncGroupResponse{Error: c}
	case protocol.HeartbeatRequest:
		out = protocol.HeartbeatResponse{Error: c}
	case protocol.LeaveGroupRequest:
		out = protocol.LeaveGroupResponse{Error: c}
	case protocol.OffsetCommitRequest:
		resp := protocol.OffsetCommitResponse{}
		for _, p := range r.Offsets {
			resp.Partitions = append(resp.Partitions, protocol.OffsetCommitPartitionResponse{TP: p.TP, Error: c})
		}
		out = resp
	case protocol.OffsetFetchRequest:
		out = protocol.OffsetFetchResponse{Error: c}
	case protocol.TxnOffsetCommitRequest:
		resp := protocol.TxnOffsetCommitResponse{}
		for _, p := range r.Offsets {
			resp.Partitions = append(resp.Partitions, protocol.OffsetCommitPartitionResponse{TP: p.TP, Error: c})
		}
		out = resp
	case protocol.ConsumerGroupHeartbeatRequest:
		out = protocol.ConsumerGroupHeartbeatResponse{Error: c, MemberID: r.MemberID, MemberEpoch: r.MemberEpoch}
	default:
		return nil
	}
	return WithCorrelation(out, CorrelationID(m))
}
