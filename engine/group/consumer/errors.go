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
	// ErrUnreleasedInstanceID: a static member joins (epoch 0) with a
	// group.instance.id whose current holder has not left with epoch -2;
	// the newcomer must wait until it has, or its session has expired.
	ErrUnreleasedInstanceID = errors.New("UNRELEASED_INSTANCE_ID")
	// ErrFencedInstanceID: a heartbeat or leave names a group.instance.id
	// that now belongs to another member id: this client was replaced.
	ErrFencedInstanceID = errors.New("FENCED_INSTANCE_ID")
	// ErrInvalidRequest: the request breaks the protocol's rules.
	ErrInvalidRequest = errors.New("INVALID_REQUEST")
	// ErrNotModelled marks parts of KIP-848 loglab does not model (it
	// is no Kafka error: Kafka would serve the request).
	ErrNotModelled = errors.New("not modelled in loglab")
)
