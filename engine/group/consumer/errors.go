package consumer

import "errors"

// The errors a ConsumerGroupHeartbeat can fail with, named as Kafka's
// Errors enum names them; wrap them with the reason.
var (
	// ErrFencedMemberEpoch: the member's epoch is not one the coordinator
	// accepts; the client drops all its partitions and rejoins at epoch 0.
	ErrFencedMemberEpoch = errors.New("FENCED_MEMBER_EPOCH")
	// ErrUnknownMemberID: the coordinator does not know the member (it
	// left or its session expired); the client rejoins.
	ErrUnknownMemberID = errors.New("UNKNOWN_MEMBER_ID")
	// ErrInvalidRequest: the request breaks the protocol's rules.
	ErrInvalidRequest = errors.New("INVALID_REQUEST")
	// ErrNotModelled marks parts of KIP-848 loglab does not model (it
	// is no Kafka error: Kafka would serve the request).
	ErrNotModelled = errors.New("not modelled in loglab")
)
