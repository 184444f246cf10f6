package txnlog

import "github.com/loglab/loglab/engine/group/offsets"

// DefaultNumPartitions is transaction.state.log.num.partitions' default.
const DefaultNumPartitions = 50

// PartitionFor is the __transaction_state partition whose leader is the
// transaction coordinator of transactionalID: Kafka's
// TransactionStateManager.partitionFor, Utils.abs(transactionalId.hashCode)
// % transactionTopicPartitionCount. It is the very hash the group
// coordinator uses for group ids, so it is that one.
func PartitionFor(transactionalID string, numPartitions int32) int32 {
	return offsets.PartitionFor(transactionalID, numPartitions)
}
