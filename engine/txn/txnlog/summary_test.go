package txnlog

import "testing"

// TestSummaryNamesTheStateTheCoordinatorWrote: the partition strip draws a
// __transaction_state record as its transactional id and what it says,
// never its binary bytes.
func TestSummaryNamesTheStateTheCoordinatorWrote(t *testing.T) {
	key, err := EncodeKey(Key{TransactionalID: "shipper-1"})
	if err != nil {
		t.Fatal(err)
	}
	v := NewValue()
	v.ProducerID, v.ProducerEpoch, v.TransactionStatus = 1, 0, Ongoing
	v.TransactionPartitions = []TopicPartitions{{Topic: "shipped", PartitionIDs: []int32{0}}, {Topic: "__consumer_offsets", PartitionIDs: []int32{2}}}
	value, err := EncodeValue(0, v)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name       string
		key, value []byte
		wantKey    string
		wantValue  string
	}{
		{"ongoing", key, value, "shipper-1", "Ongoing · pid 1 · epoch 0 · 2 partitions"},
		{"tombstone", key, nil, "shipper-1", "tombstone"},
		{"not a record", []byte{9}, nil, "undecodable", ""},
	} {
		k, v := Summary(c.key, c.value)
		if k != c.wantKey || v != c.wantValue {
			t.Errorf("%s: Summary = %q, %q; want %q, %q", c.name, k, v, c.wantKey, c.wantValue)
		}
	}
}
