package txnlog

import "strconv"

// Summary is a record of __transaction_state in a few words, for the
// partition strip where a record is a small box: the key as the
// transactional id, the value as the state the coordinator wrote, its
// producer id and epoch and how many partitions the transaction holds.
// Format is the dump-log text; this is not Kafka's output, only a label.
func Summary(key, value []byte) (keyText, valueText string) {
	rec, err := Decode(key, value)
	if err != nil {
		return "undecodable", ""
	}
	if rec.Value == nil {
		return rec.Key.TransactionalID, "tombstone"
	}
	v := rec.Value
	n := 0
	for _, tp := range v.TransactionPartitions {
		n += len(tp.PartitionIDs)
	}
	valueText = v.TransactionStatus.String() + " · pid " + strconv.FormatInt(v.ProducerID, 10) + " · epoch " + strconv.Itoa(int(v.ProducerEpoch))
	if n > 0 {
		valueText += " · " + strconv.Itoa(n) + " partition"
		if n > 1 {
			valueText += "s"
		}
	}
	return rec.Key.TransactionalID, valueText
}
