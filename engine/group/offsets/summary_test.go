package offsets

import "testing"

func TestSummaryNamesTheGroupAndTheGist(t *testing.T) {
	commitKey, err := EncodeKey(&OffsetCommitKey{Group: "g", Topic: "orders", Partition: 2})
	if err != nil {
		t.Fatal(err)
	}
	commitValue, err := EncodeValue(OffsetCommitValueVersion, &OffsetCommitValue{Offset: 42, LeaderEpoch: -1})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name       string
		key, value []byte
		k, v       string
	}{
		{"offset commit", commitKey, commitValue, "g orders/2", "offset 42"},
		{"tombstone", commitKey, nil, "g orders/2", "tombstone"},
		{"garbage", []byte{0x7f}, nil, "undecodable", ""},
	} {
		k, v := Summary(c.key, c.value)
		if k != c.k || v != c.v {
			t.Errorf("%s: Summary = %q, %q; want %q, %q", c.name, k, v, c.k, c.v)
		}
	}
}
