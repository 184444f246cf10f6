package protocol

// The KRaft requests (KIP-595, KIP-996) that replicate __cluster_metadata
// between controllers, and from the leader to observers (brokers). Field
// names follow Kafka's message definitions (VoteRequest.json, ...); ids are
// node ids, epochs KRaft's leader epochs, offsets the metadata log's.

// VoteRequest asks a voter for its vote (PreVote: whether it would vote,
// KIP-996, which changes nothing on the voter).
type VoteRequest struct {
	ClusterID string
	// ReplicaEpoch is the candidate's epoch; a pre-vote carries the
	// prospective's current epoch (KafkaRaftClient.buildVoteRequest).
	ReplicaEpoch    int32
	CandidateID     int32
	VoterID         int32
	LastOffsetEpoch int32
	LastOffset      int64 // the candidate's log end offset
	PreVote         bool
}

// VoteResponse answers a VoteRequest.
type VoteResponse struct {
	Error       ErrorCode
	LeaderID    int32 // the leader the voter knows, -1 for none
	LeaderEpoch int32 // the voter's epoch
	VoteGranted bool
	PreVote     bool // an answer to a pre-vote
}

// BeginQuorumEpochRequest is a new leader announcing itself to a voter.
type BeginQuorumEpochRequest struct {
	ClusterID   string
	LeaderID    int32
	LeaderEpoch int32
	VoterID     int32
}

// BeginQuorumEpochResponse acknowledges it.
type BeginQuorumEpochResponse struct {
	Error       ErrorCode
	LeaderID    int32
	LeaderEpoch int32
}

// EndQuorumEpochRequest is a leader giving up its epoch (a graceful
// resignation): its preferred successors start their elections first.
type EndQuorumEpochRequest struct {
	ClusterID           string
	LeaderID            int32
	LeaderEpoch         int32
	PreferredSuccessors []int32
}

// EndQuorumEpochResponse acknowledges it.
type EndQuorumEpochResponse struct {
	Error       ErrorCode
	LeaderID    int32
	LeaderEpoch int32
}

// QuorumFetchRequest is KRaft's Fetch of __cluster_metadata-0: a follower
// or an observer asks the leader for the records from FetchOffset, saying
// which epoch its last record has, so the leader can spot a divergence.
type QuorumFetchRequest struct {
	ClusterID          string
	ReplicaID          int32 // the fetching node
	CurrentLeaderEpoch int32
	FetchOffset        int64
	LastFetchedEpoch   int32
	MaxWaitMs          int32
	// HighWatermark is the fetcher's (-1: unknown): the leader answers at
	// once when its own is higher, so a commit is learned without waiting.
	HighWatermark int64
}

// MetadataEntry is one record of the metadata log with the epoch of the
// leader that wrote it (its batch's partitionLeaderEpoch).
type MetadataEntry struct {
	Epoch  int32
	Record MetadataRecord
}

// SnapshotID names a snapshot: every offset below EndOffset, the last of
// them written in Epoch.
type SnapshotID struct {
	EndOffset int64
	Epoch     int32
}

// QuorumFetchResponse answers a QuorumFetchRequest: records, or where the
// fetcher's log diverges (truncate to DivergingEpoch.EndOffset), or the
// snapshot to fetch because the records it asks for are gone.
type QuorumFetchResponse struct {
	Error         ErrorCode
	LeaderID      int32
	LeaderEpoch   int32
	HighWatermark int64
	LogStart      int64
	Entries       []MetadataEntry
	// Diverging is set when the fetcher's log diverges from the leader's:
	// the largest epoch both have, and where it ends on the leader.
	Diverging *SnapshotID
	// Snapshot is set when FetchOffset is below the leader's log start.
	Snapshot *SnapshotID
}

// FetchSnapshotRequest asks the leader for a snapshot.
type FetchSnapshotRequest struct {
	ClusterID          string
	ReplicaID          int32
	CurrentLeaderEpoch int32
	SnapshotID         SnapshotID
}

// FetchSnapshotResponse carries the whole snapshot: loglab's snapshots are
// small enough to travel in one piece (Kafka's come in chunks).
type FetchSnapshotResponse struct {
	Error       ErrorCode
	LeaderID    int32
	LeaderEpoch int32
	SnapshotID  SnapshotID
	Records     []MetadataRecord
}

func (VoteRequest) Kind() string              { return "Vote" }
func (VoteResponse) Kind() string             { return "VoteResponse" }
func (BeginQuorumEpochRequest) Kind() string  { return "BeginQuorumEpoch" }
func (BeginQuorumEpochResponse) Kind() string { return "BeginQuorumEpochResponse" }
func (EndQuorumEpochRequest) Kind() string    { return "EndQuorumEpoch" }
func (EndQuorumEpochResponse) Kind() string   { return "EndQuorumEpochResponse" }
func (QuorumFetchRequest) Kind() string       { return "Fetch" }
func (QuorumFetchResponse) Kind() string      { return "FetchResponse" }
func (FetchSnapshotRequest) Kind() string     { return "FetchSnapshot" }
func (FetchSnapshotResponse) Kind() string    { return "FetchSnapshotResponse" }
