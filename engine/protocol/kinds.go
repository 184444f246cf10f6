package protocol

// Kinds lists the Kind of every message brokers, the controller and
// clients exchange, in the order messages.go declares them: the values the
// lab's `net drop type=` accepts.
var Kinds = []string{
	ProduceRequest{}.Kind(), ProduceResponse{}.Kind(),
	FetchRequest{}.Kind(), FetchResponse{}.Kind(),
	MetadataRequest{}.Kind(), MetadataResponse{}.Kind(),
	ListOffsetsRequest{}.Kind(), ListOffsetsResponse{}.Kind(),
	BrokerHeartbeatRequest{}.Kind(), BrokerHeartbeatResponse{}.Kind(),
	BrokerRegistrationRequest{}.Kind(), BrokerRegistrationResponse{}.Kind(),
	AlterPartitionRequest{}.Kind(), AlterPartitionResponse{}.Kind(),
	MetadataUpdate{}.Kind(),
	FindCoordinatorRequest{}.Kind(), FindCoordinatorResponse{}.Kind(),
	JoinGroupRequest{}.Kind(), JoinGroupResponse{}.Kind(),
	SyncGroupRequest{}.Kind(), SyncGroupResponse{}.Kind(),
	HeartbeatRequest{}.Kind(), HeartbeatResponse{}.Kind(),
	LeaveGroupRequest{}.Kind(), LeaveGroupResponse{}.Kind(),
	OffsetCommitRequest{}.Kind(), OffsetCommitResponse{}.Kind(),
	OffsetFetchRequest{}.Kind(), OffsetFetchResponse{}.Kind(),
	ConsumerGroupHeartbeatRequest{}.Kind(), ConsumerGroupHeartbeatResponse{}.Kind(),
	CreateTopicsRequest{}.Kind(), CreateTopicsResponse{}.Kind(),
	InitProducerIdRequest{}.Kind(), InitProducerIdResponse{}.Kind(),
	AddPartitionsToTxnRequest{}.Kind(), AddPartitionsToTxnResponse{}.Kind(),
	TxnOffsetCommitRequest{}.Kind(), TxnOffsetCommitResponse{}.Kind(),
	EndTxnRequest{}.Kind(), EndTxnResponse{}.Kind(),
	WriteTxnMarkersRequest{}.Kind(), WriteTxnMarkersResponse{}.Kind(),
	AllocateProducerIdsRequest{}.Kind(), AllocateProducerIdsResponse{}.Kind(),
	// KRaft's own (raft.go); its Fetch and FetchResponse share the names above.
	VoteRequest{}.Kind(), VoteResponse{}.Kind(),
	BeginQuorumEpochRequest{}.Kind(), BeginQuorumEpochResponse{}.Kind(),
	EndQuorumEpochRequest{}.Kind(), EndQuorumEpochResponse{}.Kind(),
	FetchSnapshotRequest{}.Kind(), FetchSnapshotResponse{}.Kind(),
}
