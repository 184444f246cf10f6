package broker

// CONTRACT STUB (to be replaced): the group coordinator's side of
// transactions.

// onTxnMarker runs on the leader of a __consumer_offsets partition when a
// COMMIT or ABORT marker of producer pid is appended there: the group
// coordinator makes that producer's pending transactional offsets visible
// (commit) or drops them (abort), Kafka's
// GroupMetadataManager.handleTxnCompletion / replayEndTransactionMarker.
func (b *Broker) onTxnMarker(r *Replica, pid int64, committed bool) {}
