package coordinator

import (
	"github.com/loglab/loglab/engine/group/classic"
	"github.com/loglab/loglab/engine/protocol"
)

// classicCodes maps the classic state machine's error names to codes.
var classicCodes = map[classic.Error]protocol.ErrorCode{
	classic.None: protocol.None, classic.UnknownMemberID: protocol.UnknownMemberID,
	classic.IllegalGeneration: protocol.IllegalGeneration, classic.RebalanceInProgress: protocol.RebalanceInProgress,
	classic.MemberIDRequired: protocol.MemberIDRequired, classic.InconsistentGroupProto: protocol.InconsistentGroupProtocol,
	classic.GroupMaxSizeReached: protocol.GroupMaxSizeReached, classic.FencedInstanceID: protocol.FencedInstanceID,
	classic.CoordinatorNotAvailable: protocol.CoordinatorNotAvailable, classic.NotCoordinator: protocol.NotCoordinator,
	classic.InvalidSessionTimeout: protocol.InvalidSessionTimeout,
}

func code(e classic.Error) protocol.ErrorCode {
	if c, ok := classicCodes[e]; ok {
		return c
	}
	return protocol.InvalidRequest
}
