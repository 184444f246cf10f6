package classic

// ValidateTxnOffsetCommit is ClassicGroup.validateOffsetCommit with
// isTransactional=true, for a TxnOffsetCommit (KIP-447): the producer
// passes the consumer's group metadata so that a zombie consumer (one the
// group has moved on from) cannot commit its offsets through a
// transaction. It differs from an OffsetCommit in two ways Kafka keeps for
// older producers: a commit without member id and generation is accepted
// whatever the group's state (TxnOffsetCommit before v3 carried neither),
// and CompletingRebalance is not refused (the group's state is not
// enforced for transactional commits). It does not count as a heartbeat:
// the producer, not the member, sends it.
func (g *Group) ValidateTxnOffsetCommit(memberID, instanceID string, generation int32) Error {
	if g.state == Dead {
		return CoordinatorNotAvailable
	}
	if generation < 0 && g.state == Empty {
		return None
	}
	if generation >= 0 || memberID != "" || instanceID != "" {
		if err := g.validateMember(memberID, instanceID); err != None {
			return err
		}
		if generation != g.generation {
			return IllegalGeneration
		}
	}
	return None
}
