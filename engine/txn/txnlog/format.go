package txnlog

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
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
	k.str("transactionalId", rec.Key.TransactionalID)
	keyText = `{"type":"` + strconv.Itoa(int(KeyVersion)) + `","data":` + k.close() + `}`
	if rec.Value == nil {
		return keyText, "<DELETE>", true, nil
	}
	payload = `{"version":"` + strconv.Itoa(int(rec.ValueVersion)) + `","data":` + valueJSON(rec.Value, rec.ValueVersion) + `}`
	return keyText, payload, true, nil
}

func valueJSON(v *Value, version int16) string {
	flexible := version >= ValueVersionFlexible
	var o jsonObject
	o.num("producerId", v.ProducerID)
	if flexible && v.PreviousProducerID != -1 {
		o.num("previousProducerId", v.PreviousProducerID)
	}
	if flexible && v.NextProducerID != -1 {
		o.num("nextProducerId", v.NextProducerID)
	}
	o.num("producerEpoch", int64(v.ProducerEpoch))
	o.num("transactionTimeoutMs", int64(v.TransactionTimeoutMs))
	o.str("transactionStatus", v.TransactionStatus.String())
	if v.TransactionPartitions == nil {
		o.raw("transactionPartitions", "null")
	} else {
		arr := []byte{'['}
		for i, tp := range v.TransactionPartitions {
			if i > 0 {
				arr = append(arr, ',')
			}
			var p jsonObject
			p.str("topic", tp.Topic)
			ids := []byte{'['}
			for j, id := range tp.PartitionIDs {
				if j > 0 {
					ids = append(ids, ',')
				}
				ids = strconv.AppendInt(ids, int64(id), 10)
			}
			p.raw("partitionIds", string(append(ids, ']')))
			arr = append(arr, p.close()...)
		}
		o.raw("transactionPartitions", string(append(arr, ']')))
	}
	o.num("transactionLastUpdateTimestampMs", v.TransactionLastUpdateTimestampMs)
	o.num("transactionStartTimestampMs", v.TransactionStartTimestampMs)
	if flexible && v.ClientTransactionVersion != 0 {
		o.num("clientTransactionVersion", int64(v.ClientTransactionVersion))
	}
	return o.close()
}

// jsonObject builds a JSON object as Jackson's ObjectNode.toString prints
// it: no spaces, members in insertion order.
type jsonObject struct{ b []byte }

func (o *jsonObject) raw(name, value string) {
	if len(o.b) == 0 {
		o.b = append(o.b, '{')
	} else {
		o.b = append(o.b, ',')
	}
	o.b = appendJSONString(o.b, name)
	o.b = append(o.b, ':')
	o.b = append(o.b, value...)
}

func (o *jsonObject) str(name, s string)       { o.raw(name, string(appendJSONString(nil, s))) }
func (o *jsonObject) num(name string, n int64) { o.raw(name, strconv.FormatInt(n, 10)) }

func (o *jsonObject) close() string {
	if len(o.b) == 0 {
		return "{}"
	}
	return string(append(o.b, '}'))
}

// appendJSONString quotes s as Jackson does: '"' and '\\' escaped, control
// characters as \b \t \n \f \r or \u00XX (upper-case hex), the rest as is.
// Bytes that are not UTF-8 become U+FFFD, as Java's decoder made them when
// it read the string.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	b = append(b, '"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\b':
			b = append(b, '\\', 'b')
		case r == '\t':
			b = append(b, '\\', 't')
		case r == '\n':
			b = append(b, '\\', 'n')
		case r == '\f':
			b = append(b, '\\', 'f')
		case r == '\r':
			b = append(b, '\\', 'r')
		case r < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xf])
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return append(b, '"')
}
