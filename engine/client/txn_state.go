package client

// TxnState is TransactionManager.State: where an idempotent or
// transactional producer is in its life. An idempotent producer without a
// transactional.id only goes UNINITIALIZED -> INITIALIZING -> READY (and
// back through INITIALIZING when it has to fetch a new producer id).
type TxnState int

// TransactionManager.State, in Kafka's order.
const (
	TxnUninitialized TxnState = iota
	TxnInitializing
	TxnReady
	TxnInTransaction
	TxnCommitting
	TxnAborting
	TxnAbortableError
	TxnFatalError
)

var txnStateNames = [...]string{"UNINITIALIZED", "INITIALIZING", "READY", "IN_TRANSACTION",
	"COMMITTING_TRANSACTION", "ABORTING_TRANSACTION", "ABORTABLE_ERROR", "FATAL_ERROR"}

func (s TxnState) String() string { return txnStateNames[s] }

// transitionValid is State.isTransitionValid: the only moves Kafka's
// TransactionManager allows. FATAL_ERROR is reachable from anywhere and
// leads nowhere: a fenced or broken producer can only be closed.
func transitionValid(source, target TxnState) bool {
	switch target {
	case TxnUninitialized:
		return source == TxnReady || source == TxnAbortableError
	case TxnInitializing:
		return source == TxnUninitialized || source == TxnAborting
	case TxnReady:
		return source == TxnInitializing || source == TxnCommitting || source == TxnAborting
	case TxnInTransaction:
		return source == TxnReady
	case TxnCommitting:
		return source == TxnInTransaction
	case TxnAborting:
		return source == TxnInTransaction || source == TxnAbortableError
	case TxnAbortableError:
		return source == TxnInTransaction || source == TxnCommitting || source == TxnAbortableError || source == TxnInitializing
	default: // TxnFatalError
		return true
	}
}
