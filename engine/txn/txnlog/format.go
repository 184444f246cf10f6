package txnlog

import (
	"errors"
	"fmt"
	"strconv"
)

// Format is `kafka-dump-log.sh --transaction-log-decoder`'s
// TransactionLogMessageParser.parse (DumpLogSegments'
// CoordinatorRecordMessageParser over TransactionCoordinatorRecordSerde) for
// the record at offset: the key as {"type":"0","data":{"transactionalId":...}}
// and the payload as {"version":"V","data":{...}}, data being the generated
// JsonConverter output (camelCase names, the version's fields in schema
// order, a tagged field only when it is not its default), printed compactly
// as Jackson does, with transactionStatus as the state's name
// (KAFKA-20712). A tombstone's payload is <DELETE>. A record that does not
// decode gets a key text saying so and no payload (hasPayload false), as
// Kafka skips it. The caller prints "key: "+key and " payload: "+payload.
//
// A record without a key is an error: Kafka's parser throws and the dump
// dies; the caller decides what to print instead.
func Format(offset int64, key, value []byte) (keyText, payload string, hasPayload bool, err error) {
	if key == nil {
		return "", "", false, fmt.Errorf("Failed to decode message at offset %d using the specified decoder (message had a missing key)", offset)
	}
	rec, err := Decode(key, value)
	if err == nil && rec.Value != nil {
		_, err = StateFromID(int8(rec.Value.TransactionStatus))
	}
	if err != nil {
		var unknown *UnknownTypeError
		if errors.As(err, &unknown) {
			return fmt.Sprintf("Unknown record type %d at offset %d, skipping.", unknown.Type, offset), "", false, nil
		}
		return fmt.Sprintf("Error at offset %d, skipping. %s", offset, err), "", false, nil
	}
	var k jsonObject
	k.Str("transactionalId", rec.Key.TransactionalID)
	keyText = `{"type":"` + strconv.Itoa(int(KeyVersion)) + `","data":` + k.Close() + `}`
	if rec.Value == nil {
		return keyText, "<DELETE>", true, nil
	}
	payload = `{"version":"` + strconv.Itoa(int(rec.ValueVersion)) + `","data":` + valueJSON(rec.Value, rec.ValueVersion) + `}`
	return keyText, payload, true, nil
}

func valueJSON(v *Value, version int16) string {
	flexible := version >= ValueVersionFlexible
	var o jsonObject
	o.Num("producerId", v.ProducerID)
	if flexible && v.PreviousProducerID != -1 {
		o.Num("previousProducerId", v.PreviousProducerID)
	}
	if flexible && v.NextProducerID != -1 {
		o.Num("nextProducerId", v.NextProducerID)
	}
	o.Num("producerEpoch", int64(v.ProducerEpoch))
	o.Num("transactionTimeoutMs", int64(v.TransactionTimeoutMs))
	o.Str("transactionStatus", v.TransactionStatus.String())
	if v.TransactionPartitions == nil {
		o.Raw("transactionPartitions", "null")
	} else {
		arr := []byte{'['}
		for i, tp := range v.TransactionPartitions {
			if i > 0 {
				arr = append(arr, ',')
			}
			var p jsonObject
			p.Str("topic", tp.Topic)
			ids := []byte{'['}
			for j, id := range tp.PartitionIDs {
				if j > 0 {
					ids = append(ids, ',')
				}
				ids = strconv.AppendInt(ids, int64(id), 10)
			}
			p.Raw("partitionIds", string(append(ids, ']')))
			arr = append(arr, p.Close()...)
		}
		o.Raw("transactionPartitions", string(append(arr, ']')))
	}
	o.Num("transactionLastUpdateTimestampMs", v.TransactionLastUpdateTimestampMs)
	o.Num("transactionStartTimestampMs", v.TransactionStartTimestampMs)
	if flexible && v.ClientTransactionVersion != 0 {
		o.Num("clientTransactionVersion", int64(v.ClientTransactionVersion))
	}
	return o.Close()
}
