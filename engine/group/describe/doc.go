// Package describe prints what Kafka 4.x's kafka-consumer-groups.sh
// prints, byte for byte, from a snapshot of the groups: --describe
// (--offsets, the default), --describe --members, --describe --state
// (each with or without --verbose), --list and --list --state/--type.
//
// It follows tools/src/main/java/org/apache/kafka/tools/consumer/group/
// ConsumerGroupCommand.java of the 4.x line, with KIP-1099's columns
// (LEADER-EPOCH, CURRENT-EPOCH, TARGET-EPOCH, TARGET-ASSIGNMENT,
// GROUP-EPOCH, TARGET-ASSIGNMENT-EPOCH): printOffsets/printOffsetFormat,
// printMembers/printMembersHelper/getAssignmentString, printStates,
// printGroupInfo, and shouldPrintMemberState for the lines about the
// group's state. Column widths are computed from the data as Kafka
// computes them; "-" stands where Kafka prints MISSING_COLUMN_VALUE.
// The rows of --describe are built as ConsumerGroupService's
// collectGroupsOffsets builds them: members with partitions first, the
// most partitions first, then the committed partitions nobody owns.
//
// What differs from Kafka:
//   - Kafka writes the state lines ("has no active members", "is
//     rebalancing") to stderr and the tables to stdout; here both are one
//     string, in the order Kafka writes them.
//   - Kafka lists members (and groups in --list) in the order the brokers
//     return them, which follows Java hash maps; here they come in the
//     order the caller gives.
//   - Kafka's UPGRADED column (a group with both classic- and
//     consumer-protocol members, mid-migration) is not printed: loglab
//     has no such groups.
//   - For a group that does not exist, Kafka 4.x's Admin client fails
//     with GroupIdNotFoundException and the tool prints that error and a
//     Java stack trace (NotFound prints the error line, not the stack).
//     "Consumer group 'X' does not exist." is what it prints for a group
//     described in state Dead (and what 3.x printed for a missing group).
package describe
