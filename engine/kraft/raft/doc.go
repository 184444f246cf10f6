// Package raft is KRaft, the protocol Kafka 4.x replicates its metadata
// log (__cluster_metadata) with (KIP-595, with KIP-996's pre-vote), as a
// deterministic state machine: a Node is driven by messages delivered on
// sim.Network and timers on sim.Scheduler, and never reads the wall clock,
// starts a goroutine or draws randomness except from its seeded source.
// Same seed and same deliveries give the same elections, epochs and
// offsets, natively, in WebAssembly and in every replay.
//
// What a node does follows Kafka's KafkaRaftClient and its EpochState
// classes (one file per concern here):
//
//   - state.go     the roles of QuorumState: Unattached, Prospective,
//     Candidate, Leader, Follower, Resigned; observers are nodes that are
//     not voters (brokers) and only ever follow
//   - election.go  pre-vote and vote (handleVoteRequest, the candidate's and
//     the prospective's tallies), election timeouts with seeded jitter and
//     the exponential election backoff
//   - leader.go    the leader: the LeaderChange record at the epoch's start,
//     BeginQuorumEpoch, answering Fetch (diverging epochs, snapshots, long
//     polls), the high watermark, check-quorum
//   - follower.go  followers and observers: the fetch loop, truncation of a
//     diverging suffix, FetchSnapshot, the fetch timeout
//   - log.go       the log and its snapshot
//   - store.go     what survives a crash (quorum-state, log, snapshot)
//   - halt.go      a store that fails a write stops the node, as Kafka's
//     fatal fault handler stops the process
//
// Differences from Kafka are written next to the code they concern and in
// README's "Differences from Kafka".
package raft
