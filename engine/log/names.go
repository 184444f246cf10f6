package log

import (
	"fmt"
	"strconv"
	"strings"
)

// Kafka names a segment's files by the offset of its first record, zero
// padded to 20 digits, so that a directory listing sorts them in log order.
const (
	LogSuffix       = ".log"
	IndexSuffix     = ".index"
	TimeIndexSuffix = ".timeindex"
	// TxnIndexSuffix is the segment's aborted-transaction index, created
	// only when the first aborted transaction is recorded in the segment.
	TxnIndexSuffix = ".txnindex"
	// SnapshotSuffix is a producer-state snapshot, named by the offset it
	// was taken at (producerstate.SnapshotFileName).
	SnapshotSuffix = ".snapshot"
	// CleanedSuffix and SwapSuffix mark the cleaner's new segments while they
	// replace old ones, as in Kafka: a crash mid-swap is finished or undone
	// on open.
	CleanedSuffix = ".cleaned"
	SwapSuffix    = ".swap"
	// EpochCheckpointFile is Kafka's leader-epoch-checkpoint.
	EpochCheckpointFile = "leader-epoch-checkpoint"
)

// FileName is "<20-digit base offset><suffix>", e.g. 00000000000000000042.log.
func FileName(baseOffset int64, suffix string) string {
	return fmt.Sprintf("%020d%s", baseOffset, suffix)
}

// ParseFileName reads the base offset back out of a segment file name.
func ParseFileName(name string) (baseOffset int64, suffix string, ok bool) {
	dot := strings.IndexByte(name, '.')
	if dot != 20 {
		return 0, "", false
	}
	n, err := strconv.ParseInt(name[:dot], 10, 64)
	if err != nil || n < 0 {
		return 0, "", false
	}
	return n, name[dot:], true
}

// PartitionDir is Kafka's directory name for a partition: "<topic>-<partition>".
func PartitionDir(topic string, partition int) string {
	return topic + "-" + strconv.Itoa(partition)
}
