// Package coordinator is Kafka 4.x's group coordinator for one partition
// of __consumer_offsets (a GroupCoordinatorShard: GroupMetadataManager
// and OffsetMetadataManager), as a pure state machine. The broker that
// leads the partition feeds it requests and the virtual time; every call
// returns the responses, the records to append to the partition
// (engine/group/offsets keys and values, Kafka's bytes) and trace lines.
// The broker sends the responses only once the records are committed, as
// Kafka's CoordinatorRuntime does. Replay rebuilds a shard from the
// partition's log when another broker takes the partition over: the
// log IS the coordinator's state.
//
// Classic groups (JoinGroup/SyncGroup/Heartbeat/LeaveGroup) are
// engine/group/classic, KIP-848 consumer groups (ConsumerGroupHeartbeat)
// engine/group/consumer, committed offsets live here.
//
// Transactions (KIP-98, KIP-447): a TxnOffsetCommit is validated against
// the consumer the producer speaks for (a zombie gets ILLEGAL_GENERATION,
// UNKNOWN_MEMBER_ID or FENCED_INSTANCE_ID) and written as one
// transactional batch of that producer; its offsets stay pending for the
// producer (OffsetFetch with RequireStable answers UNSTABLE_OFFSET_COMMIT)
// until the transaction's COMMIT marker makes them the committed ones,
// where they were written after the committed one, or its ABORT marker
// drops them. Replay rebuilds pending offsets from the batches' producer
// ids and decides them with the markers, as Kafka's loader does.
//
// Where loglab differs from Kafka:
//   - A transactional commit's offsets become pending once the broker has
//     appended their batch (ReplayRecord); Kafka replays them when it
//     writes and reverts the shard if the write fails. Either way a
//     refused write leaves nothing pending.
//   - A request's response waits for everything the shard has written so
//     far to commit, and reads (OffsetFetch) see writes not yet committed
//     (they are answered only after those commit). Kafka runs reads
//     against the last committed snapshot and defers only writes.
//   - KIP-848 records name topics by id; loglab topics have none, so the
//     coordinator uses TopicID, a hash of the name. A topic deleted and
//     recreated under the same name is the same topic to it.
//   - A consumer group's server assignor is the one its first member
//     names (group.remote.assignor; uniform when none), not the one most
//     members name.
//   - A classic member joining a consumer group, or a consumer-protocol
//     member joining a classic group with members (Kafka's online
//     migration), is refused with GROUP_ID_NOT_FOUND: migration is not
//     modelled.
//   - An append that fails answers COORDINATOR_NOT_AVAILABLE but keeps
//     the state; Kafka reverts the shard to its last committed state.
//   - Offsets expire only for groups with no members (Kafka also expires
//     a consumer group's offsets of topics no member subscribes to).
//   - A member's client.id is the client's node name and its host
//     "/"+name (Kafka prints the client's IP address).
package coordinator
