package coordinator

import (
	"fmt"
	"slices"
	"strings"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/txn/txnlog"
)

// Description is what DescribeTransactions answers for one transactional
// id (kafka-transactions.sh describe), plus the coordinator's own state.
type Description struct {
	TransactionalID string
	State           txnlog.TransactionState
	// PendingState is the transition waiting for its record to commit
	// ("" when none).
	PendingState         string
	ProducerID           int64
	ProducerEpoch        int16
	TransactionTimeoutMs int32
	// TransactionStartTimeMs is -1 when no transaction is open.
	TransactionStartTimeMs int64
	LastUpdateTimeMs       int64
	Partitions             []protocol.TopicPartition
	CoordinatorEpoch       int32
	// CoordinatorID is the broker's id, filled in by the broker.
	CoordinatorID int32
}

// TransactionDurationMs is kafka-transactions.sh's column: how long the
// current transaction has been open, -1 when none is.
func (d Description) TransactionDurationMs(nowMs int64) int64 {
	if d.TransactionStartTimeMs < 0 {
		return -1
	}
	return nowMs - d.TransactionStartTimeMs
}

// Describe is handleDescribeTransactions: TRANSACTIONAL_ID_NOT_FOUND for
// an unknown id or one being expired (Dead).
func (p *Partition) Describe(txnID string) (Description, protocol.ErrorCode) {
	m := p.txns[txnID]
	if m == nil || m.State == txnlog.Dead {
		return Description{TransactionalID: txnID}, protocol.TransactionalIDNotFound
	}
	d := Description{TransactionalID: txnID, State: m.State, ProducerID: m.ProducerID, ProducerEpoch: m.ProducerEpoch,
		TransactionTimeoutMs: m.TxnTimeoutMs, TransactionStartTimeMs: m.TxnStartTimestamp, LastUpdateTimeMs: m.TxnLastUpdateTimestamp,
		Partitions: slices.Clone(m.Partitions), CoordinatorEpoch: p.CoordinatorEpoch}
	if m.pending {
		d.PendingState = m.pendingTo.String()
	}
	return d, protocol.None
}

func tpList(tps []protocol.TopicPartition) string {
	s := make([]string, len(tps))
	for i, tp := range tps {
		s[i] = fmt.Sprintf("%s/%d", tp.Topic, tp.Partition)
	}
	return strings.Join(s, ",")
}

func partitionCount(n int) string {
	if n == 1 {
		return "1 partition"
	}
	return fmt.Sprintf("%d partitions", n)
}
