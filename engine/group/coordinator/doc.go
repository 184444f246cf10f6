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
// Where loglab differs from Kafka:
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
