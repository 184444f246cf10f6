package protocol

// The group coordinator's requests and responses, Kafka's names and fields
// (FindCoordinator v4+, JoinGroup v9, SyncGroup v5, Heartbeat v4,
// LeaveGroup v5, OffsetCommit v9, OffsetFetch v9, ConsumerGroupHeartbeat
// v0, CreateTopics for the broker's auto-creation of __consumer_offsets).
// Each carries one group where Kafka's may batch several; byte fields that
// Kafka leaves opaque to the coordinator (subscriptions and assignments)
// stay bytes in Kafka's ConsumerProtocol format.

// CoordinatorTypeGroup and CoordinatorTypeTransaction are FindCoordinator's
// key types.
const (
	CoordinatorTypeGroup       int8 = 0
	CoordinatorTypeTransaction int8 = 1
)

// FindCoordinatorRequest asks any broker which broker coordinates a group
// (the leader of its __consumer_offsets partition).
type FindCoordinatorRequest struct {
	CorrelationID int64
	KeyType       int8
	Key           string
}

// FindCoordinatorResponse answers it; NodeID is -1 with an error such as
// COORDINATOR_NOT_AVAILABLE (the topic is being created or has no leader).
type FindCoordinatorResponse struct {
	CorrelationID int64
	Key           string
	Error         ErrorCode
	NodeID        int32
}

// JoinGroupProtocol is one assignor the member supports, with its
// subscription in that assignor's metadata format.
type JoinGroupProtocol struct {
	Name     string
	Metadata []byte
}

// JoinGroupRequest joins (or rejoins) a classic group.
type JoinGroupRequest struct {
	CorrelationID      int64
	GroupID            string
	SessionTimeoutMs   int32
	RebalanceTimeoutMs int32
	MemberID           string // "" on the first join
	GroupInstanceID    string // "": a dynamic member
	ProtocolType       string // "consumer"
	Protocols          []JoinGroupProtocol
	Reason             string
}

// JoinGroupMember is one member listed to the leader.
type JoinGroupMember struct {
	MemberID        string
	GroupInstanceID string
	Metadata        []byte
}

// JoinGroupResponse answers a JoinGroup; Members is set for the leader only.
type JoinGroupResponse struct {
	CorrelationID  int64
	Error          ErrorCode
	GenerationID   int32
	ProtocolType   string
	ProtocolName   string
	Leader         string
	SkipAssignment bool
	MemberID       string
	Members        []JoinGroupMember
}

// SyncGroupAssignment is one member's assignment in the leader's SyncGroup.
type SyncGroupAssignment struct {
	MemberID   string
	Assignment []byte
}

// SyncGroupRequest ends a classic rebalance: the leader sends everyone's
// assignment, the others wait for theirs.
type SyncGroupRequest struct {
	CorrelationID   int64
	GroupID         string
	GenerationID    int32
	MemberID        string
	GroupInstanceID string
	ProtocolType    string
	ProtocolName    string
	Assignments     []SyncGroupAssignment
}

// SyncGroupResponse carries the member's assignment.
type SyncGroupResponse struct {
	CorrelationID int64
	Error         ErrorCode
	ProtocolType  string
	ProtocolName  string
	Assignment    []byte
}

// HeartbeatRequest keeps a classic member's session alive.
type HeartbeatRequest struct {
	CorrelationID   int64
	GroupID         string
	GenerationID    int32
	MemberID        string
	GroupInstanceID string
}

// HeartbeatResponse answers it: REBALANCE_IN_PROGRESS tells the member to
// rejoin.
type HeartbeatResponse struct {
	CorrelationID int64
	Error         ErrorCode
}

// MemberIdentity names a member leaving a classic group.
type MemberIdentity struct {
	MemberID        string
	GroupInstanceID string
	Reason          string
}

// LeaveGroupRequest removes members from a classic group.
type LeaveGroupRequest struct {
	CorrelationID int64
	GroupID       string
	Members       []MemberIdentity
}

// LeaveGroupMemberResponse is the outcome for one member.
type LeaveGroupMemberResponse struct {
	MemberID        string
	GroupInstanceID string
	Error           ErrorCode
}

// LeaveGroupResponse answers a LeaveGroup.
type LeaveGroupResponse struct {
	CorrelationID int64
	Error         ErrorCode
	Members       []LeaveGroupMemberResponse
}

// OffsetCommitPartition is one committed position.
type OffsetCommitPartition struct {
	TP          TopicPartition
	Offset      int64
	LeaderEpoch int32 // -1: unknown
	Metadata    string
}

// OffsetCommitRequest commits positions for a group. A member sends its
// generation (classic) or member epoch (consumer protocol); an admin or a
// consumer without a group membership sends -1 and "".
type OffsetCommitRequest struct {
	CorrelationID             int64
	GroupID                   string
	GenerationIDOrMemberEpoch int32
	MemberID                  string
	GroupInstanceID           string
	Offsets                   []OffsetCommitPartition
}

// OffsetCommitPartitionResponse is one partition's outcome.
type OffsetCommitPartitionResponse struct {
	TP    TopicPartition
	Error ErrorCode
}

// OffsetCommitResponse answers an OffsetCommit, partition by partition.
type OffsetCommitResponse struct {
	CorrelationID int64
	Partitions    []OffsetCommitPartitionResponse
}

// OffsetFetchRequest reads a group's committed positions; no TPs means all.
type OffsetFetchRequest struct {
	CorrelationID int64
	GroupID       string
	MemberID      string // consumer protocol members name themselves (v9)
	MemberEpoch   int32  // -1 otherwise
	TPs           []TopicPartition
	RequireStable bool
}

// OffsetFetchPartition is one committed position; Offset -1: none.
type OffsetFetchPartition struct {
	TP          TopicPartition
	Offset      int64
	LeaderEpoch int32
	Metadata    string
	Error       ErrorCode
}

// OffsetFetchResponse answers an OffsetFetch.
type OffsetFetchResponse struct {
	CorrelationID int64
	Error         ErrorCode
	Partitions    []OffsetFetchPartition
}

// TopicPartitions is a topic's partitions in a KIP-848 heartbeat (Kafka
// keys them by topic id; loglab has no topic ids and uses the name).
type TopicPartitions struct {
	Topic      string
	Partitions []int32
}

// ConsumerGroupHeartbeatRequest is KIP-848's one request: join (epoch 0),
// heartbeat, report owned partitions, leave (epoch -1, or -2 for a static
// member). Nil fields were not sent: unchanged since the last heartbeat.
type ConsumerGroupHeartbeatRequest struct {
	CorrelationID        int64
	GroupID              string
	MemberID             string
	MemberEpoch          int32
	InstanceID           string
	RackID               string
	RebalanceTimeoutMs   int32 // -1: unchanged
	SubscribedTopicNames []string
	ServerAssignor       string
	TopicPartitions      []TopicPartitions // owned partitions; nil: unchanged
}

// ConsumerGroupHeartbeatResponse gives the member its epoch and, when it
// changed, its assignment (nil: unchanged).
type ConsumerGroupHeartbeatResponse struct {
	CorrelationID       int64
	Error               ErrorCode
	ErrorMessage        string
	MemberID            string
	MemberEpoch         int32
	HeartbeatIntervalMs int32
	Assignment          []TopicPartitions
	HasAssignment       bool // Assignment was sent (it may be empty)
}

// CreateTopicsRequest is a broker asking the controller for a topic (Kafka
// forwards it; loglab's brokers send it to auto-create internal topics).
type CreateTopicsRequest struct {
	CorrelationID     int64
	Name              string
	NumPartitions     int32
	ReplicationFactor int16
	Configs           [][2]string
}

// CreateTopicsResponse answers it: TOPIC_ALREADY_EXISTS is success for an
// auto-creation.
type CreateTopicsResponse struct {
	CorrelationID int64
	Name          string
	Error         ErrorCode
	ErrorMessage  string
}

func (FindCoordinatorRequest) Kind() string         { return "FindCoordinator" }
func (FindCoordinatorResponse) Kind() string        { return "FindCoordinatorResponse" }
func (JoinGroupRequest) Kind() string               { return "JoinGroup" }
func (JoinGroupResponse) Kind() string              { return "JoinGroupResponse" }
func (SyncGroupRequest) Kind() string               { return "SyncGroup" }
func (SyncGroupResponse) Kind() string              { return "SyncGroupResponse" }
func (HeartbeatRequest) Kind() string               { return "Heartbeat" }
func (HeartbeatResponse) Kind() string              { return "HeartbeatResponse" }
func (LeaveGroupRequest) Kind() string              { return "LeaveGroup" }
func (LeaveGroupResponse) Kind() string             { return "LeaveGroupResponse" }
func (OffsetCommitRequest) Kind() string            { return "OffsetCommit" }
func (OffsetCommitResponse) Kind() string           { return "OffsetCommitResponse" }
func (OffsetFetchRequest) Kind() string             { return "OffsetFetch" }
func (OffsetFetchResponse) Kind() string            { return "OffsetFetchResponse" }
func (ConsumerGroupHeartbeatRequest) Kind() string  { return "ConsumerGroupHeartbeat" }
func (ConsumerGroupHeartbeatResponse) Kind() string { return "ConsumerGroupHeartbeatResponse" }
func (CreateTopicsRequest) Kind() string            { return "CreateTopics" }
func (CreateTopicsResponse) Kind() string           { return "CreateTopicsResponse" }
