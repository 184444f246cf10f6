package producerstate

const pid = int64(1)

// data is a client or replicated data batch of one producer.
func data(epoch int16, firstSeq, lastSeq int32, firstOffset, lastOffset, ts int64, txn bool) Batch {
	return Batch{ProducerID: pid, Epoch: epoch, FirstSeq: firstSeq, LastSeq: lastSeq,
		FirstOffset: firstOffset, LastOffset: lastOffset, MaxTimestamp: ts, Transactional: txn}
}

// one is a one-record batch.
func one(epoch int16, seq int32, offset int64, txn bool) Batch {
	return data(epoch, seq, seq, offset, offset, 1000+offset, txn)
}

func marker(epoch int16, typ ControlType, coordEpoch int32, offset int64) Batch {
	return Batch{ProducerID: pid, Epoch: epoch, FirstSeq: NoSequence, LastSeq: NoSequence,
		FirstOffset: offset, LastOffset: offset, MaxTimestamp: 1000 + offset,
		Marker: &Marker{Type: typ, CoordinatorEpoch: coordEpoch}}
}

func equalEntry(a, b Entry) bool {
	if a.ProducerID != b.ProducerID || a.Epoch != b.Epoch || a.CoordinatorEpoch != b.CoordinatorEpoch ||
		a.LastTimestamp != b.LastTimestamp || a.CurrentTxnFirstOffset != b.CurrentTxnFirstOffset || len(a.Batches) != len(b.Batches) {
		return false
	}
	for i := range a.Batches {
		if a.Batches[i] != b.Batches[i] {
			return false
		}
	}
	return true
}
