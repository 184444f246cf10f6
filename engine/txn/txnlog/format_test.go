package txnlog

import "testing"

func mustEncode(t *testing.T, k Key, version int16, v *Value) (key, value []byte) {
	t.Helper()
	key, err := EncodeKey(k)
	if err != nil {
		t.Fatal(err)
	}
	value, err = EncodeValue(version, v)
	if err != nil {
		t.Fatal(err)
	}
	return key, value
}

func TestFormat(t *testing.T) {
	// The first case is the record in KAFKA-20712's manual run of
	// kafka-dump-log.sh --transaction-log-decoder (apache/kafka#22615):
	// keySize 15 and valueSize 45 there, as here.
	kafkaKey, kafkaValue := mustEncode(t, Key{TransactionalID: "kafka-txn-0"}, 1, &Value{
		ProducerID: 0, PreviousProducerID: 0, NextProducerID: -1, ProducerEpoch: 0,
		TransactionTimeoutMs: 60000, TransactionStatus: Empty,
		TransactionLastUpdateTimestampMs: 1781778768194, TransactionStartTimestampMs: -1})
	if len(kafkaKey) != 15 || len(kafkaValue) != 45 {
		t.Errorf("Kafka's record: keySize %d valueSize %d, Kafka's dump says 15 and 45", len(kafkaKey), len(kafkaValue))
	}
	badStatus := append([]byte{}, golden[0].valHex...)
	badStatus[16] = 9
	for _, tc := range []struct {
		name          string
		offset        int64
		key, value    []byte
		wantKey       string
		wantPayload   string
		wantNoPayload bool
	}{
		{
			name: "Kafka: KAFKA-20712's Empty v1 record", key: kafkaKey, value: kafkaValue,
			wantKey: `{"type":"0","data":{"transactionalId":"kafka-txn-0"}}`,
			wantPayload: `{"version":"1","data":{"producerId":0,"previousProducerId":0,"producerEpoch":0,` +
				`"transactionTimeoutMs":60000,"transactionStatus":"Empty","transactionPartitions":null,` +
				`"transactionLastUpdateTimestampMs":1781778768194,"transactionStartTimestampMs":-1}}`,
		},
		{
			// v0 has no tagged fields, so none print even at their defaults.
			name: "v0 Ongoing", key: golden[0].keyHex, value: golden[0].valHex,
			wantKey: `{"type":"0","data":{"transactionalId":"txn-1"}}`,
			wantPayload: `{"version":"0","data":{"producerId":1000,"producerEpoch":3,"transactionTimeoutMs":60000,` +
				`"transactionStatus":"Ongoing","transactionPartitions":[{"topic":"orders","partitionIds":[0,2]}],` +
				`"transactionLastUpdateTimestampMs":1700000000000,"transactionStartTimestampMs":1699999999000}}`,
		},
		{
			// Tagged fields in schema order, each only when not default.
			name: "v1 with tags", key: golden[2].keyHex, value: golden[2].valHex,
			wantKey: `{"type":"0","data":{"transactionalId":"txn-1"}}`,
			wantPayload: `{"version":"1","data":{"producerId":1000,"previousProducerId":999,"producerEpoch":4,` +
				`"transactionTimeoutMs":60000,"transactionStatus":"CompleteCommit","transactionPartitions":` +
				`[{"topic":"orders","partitionIds":[0,2]},{"topic":"payments","partitionIds":[1]}],` +
				`"transactionLastUpdateTimestampMs":1700000000000,"transactionStartTimestampMs":1699999999000,` +
				`"clientTransactionVersion":2}}`,
		},
		{
			name: "v1 nextProducerId", key: golden[3].keyHex, value: golden[3].valHex,
			wantKey: `{"type":"0","data":{"transactionalId":"t"}}`,
			wantPayload: `{"version":"1","data":{"producerId":5,"nextProducerId":6,"producerEpoch":32766,` +
				`"transactionTimeoutMs":1000,"transactionStatus":"PrepareEpochFence","transactionPartitions":null,` +
				`"transactionLastUpdateTimestampMs":0,"transactionStartTimestampMs":0}}`,
		},
		{
			name: "tombstone", key: golden[0].keyHex, value: nil,
			wantKey:     `{"type":"0","data":{"transactionalId":"txn-1"}}`,
			wantPayload: "<DELETE>",
		},
		{
			name: "escaped id", key: mustKeyOnly(t, "a\"b\\c\n\x01é"), value: nil,
			wantKey:     `{"type":"0","data":{"transactionalId":"a\"b\\c\n\u0001é"}}`,
			wantPayload: "<DELETE>",
		},
		{
			name: "unknown key type", offset: 12, key: []byte{0x00, 0x03, 0x00, 0x00}, value: golden[0].valHex,
			wantKey: "Unknown record type 3 at offset 12, skipping.", wantNoPayload: true,
		},
		{
			name: "corrupt value", offset: 7, key: golden[0].keyHex, value: golden[0].valHex[:5],
			wantKey:       "Error at offset 7, skipping. Could not read record with version 0 from value's buffer due to: java.nio.BufferUnderflowException.",
			wantNoPayload: true,
		},
		{
			name: "unknown state id", offset: 3, key: golden[0].keyHex, value: badStatus,
			wantKey:       "Error at offset 3, skipping. Unknown transaction state id 9 from the transaction status message",
			wantNoPayload: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, p, has, err := Format(tc.offset, tc.key, tc.value)
			if err != nil {
				t.Fatal(err)
			}
			if k != tc.wantKey {
				t.Errorf("key\n got %s\nwant %s", k, tc.wantKey)
			}
			if has == tc.wantNoPayload || p != tc.wantPayload {
				t.Errorf("payload %v\n got %s\nwant %s", has, p, tc.wantPayload)
			}
		})
	}
}

func mustKeyOnly(t *testing.T, id string) []byte {
	t.Helper()
	b, err := EncodeKey(Key{TransactionalID: id})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A record with no key kills Kafka's dump (the parser throws); Format
// returns the error for the caller to print.
func TestFormatMissingKey(t *testing.T) {
	_, _, _, err := Format(4, nil, golden[0].valHex)
	want := "Failed to decode message at offset 4 using the specified decoder (message had a missing key)"
	if err == nil || err.Error() != want {
		t.Errorf("Format(nil key) error = %v, want %q", err, want)
	}
}
