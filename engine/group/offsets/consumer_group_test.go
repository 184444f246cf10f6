package offsets

import (
	"bytes"
	"reflect"
	"testing"
)

var topicA = [16]byte{0x52, 0x3E, 0x70, 0x9F, 0xF1, 0x6A, 0x4D, 0x78, 0xAB, 0x10, 0x04, 0xAF, 0x55, 0x94, 0x58, 0xD7}

// Golden bytes for a KIP-848 record, by hand from
// ConsumerGroupCurrentMemberAssignmentKey/Value.json:
//
//	key:   00 08 (type 8) | 00 01 'g' | 00 01 'm'   (never flexible)
//	value: 00 00                 version 0 (flexible)
//	       00 00 00 05           memberEpoch 5
//	       00 00 00 04           previousMemberEpoch 4
//	       01                    state 1 (int8)
//	       02                    assignedPartitions: compact array of 1
//	         <16 bytes topic id>
//	         03 00 00 00 00 00 00 00 02   partitions [0, 2]
//	         00                  tags of the element
//	       01                    partitionsPendingRevocation: empty
//	       00                    tags of the value
func TestCurrentMemberAssignmentGolden(t *testing.T) {
	key := &MemberKey{RecordType: TypeConsumerGroupCurrentMemberAssignment, GroupID: "g", MemberID: "m"}
	val := &ConsumerGroupCurrentMemberAssignmentValue{MemberEpoch: 5, PreviousMemberEpoch: 4, State: 1,
		AssignedPartitions:          []TopicPartitions{{TopicID: topicA, Partitions: []int32{0, 2}}},
		PartitionsPendingRevocation: []TopicPartitions{}}
	wantKey := []byte{0x00, 0x08, 0x00, 0x01, 'g', 0x00, 0x01, 'm'}
	wantVal := append(append([]byte{0x00, 0x00, 0, 0, 0, 5, 0, 0, 0, 4, 0x01, 0x02}, topicA[:]...),
		0x03, 0, 0, 0, 0, 0, 0, 0, 2, 0x00, 0x01, 0x00)
	if k, err := EncodeKey(key); err != nil || !bytes.Equal(k, wantKey) {
		t.Errorf("key % X, %v\nwant % X", k, err, wantKey)
	}
	if v, err := EncodeValue(0, val); err != nil || !bytes.Equal(v, wantVal) {
		t.Errorf("value % X, %v\nwant  % X", v, err, wantVal)
	}
	rec, err := Decode(wantKey, wantVal)
	if err != nil || !reflect.DeepEqual(rec.Key, key) || !reflect.DeepEqual(rec.Value, val) {
		t.Fatalf("Decode = %+v %+v, %v", rec.Key, rec.Value, err)
	}
	k, p, _, _ := Format(3, wantKey, wantVal)
	if want := `{"type":"8","data":{"groupId":"g","memberId":"m"}}`; k != want {
		t.Errorf("key text %s, want %s", k, want)
	}
	// The topic id prints as Uuid.toString: URL-safe unpadded base64.
	if want := `{"version":"0","data":{"memberEpoch":5,"previousMemberEpoch":4,"state":1,` +
		`"assignedPartitions":[{"topicId":"Uj5wn_FqTXirEASvVZRY1w","partitions":[0,2]}],` +
		`"partitionsPendingRevocation":[]}}`; p != want {
		t.Errorf("payload %s\nwant    %s", p, want)
	}
}

func TestKIP848RoundTrips(t *testing.T) {
	member := &ConsumerGroupMemberMetadataValue{InstanceID: strp("i"), ClientID: "c", ClientHost: "/h",
		SubscribedTopicNames: []string{"a", "b"}, RebalanceTimeoutMs: 300000, ServerAssignor: strp("uniform")}
	classic := *member
	classic.ClassicMemberMetadata = &ClassicMemberMetadata{SessionTimeoutMs: 45000,
		SupportedProtocols: []ClassicProtocol{{Name: "range", Metadata: []byte{0, 3}}}}
	for _, tc := range []struct {
		key Key
		val Value
	}{
		{&MemberKey{RecordType: TypeConsumerGroupMemberMetadata, GroupID: "g", MemberID: "m"}, member},
		{&MemberKey{RecordType: TypeConsumerGroupMemberMetadata, GroupID: "g", MemberID: "m"}, &classic},
		{&TargetAssignmentMetadataKey{GroupID: "g"}, &ConsumerGroupTargetAssignmentMetadataValue{AssignmentEpoch: 9}},
		{&MemberKey{RecordType: TypeConsumerGroupTargetAssignmentMember, GroupID: "g", MemberID: "m"},
			&ConsumerGroupTargetAssignmentMemberValue{TopicPartitions: []TopicPartitions{{TopicID: topicA, Partitions: []int32{1}}}}},
	} {
		roundTrip(t, tc.key, 0, tc.val, tc.val)
	}
}

// The classic member's protocols live in tagged field 0, present only when
// set, and print only when set, as the generated JsonConverter does.
func TestMemberMetadataTaggedField(t *testing.T) {
	key := mustKey(t, &MemberKey{RecordType: TypeConsumerGroupMemberMetadata, GroupID: "g", MemberID: "m"})
	plain := &ConsumerGroupMemberMetadataValue{ClientID: "c", ClientHost: "h", SubscribedTopicNames: []string{"t"}, RebalanceTimeoutMs: 10}
	b := mustValue(t, 0, plain)
	if b[len(b)-1] != 0x00 {
		t.Errorf("no tagged fields should end in 00: % X", b)
	}
	_, p, _, _ := Format(0, key, b)
	want := `{"version":"0","data":{"instanceId":null,"rackId":null,"clientId":"c","clientHost":"h",` +
		`"subscribedTopicNames":["t"],"subscribedTopicRegex":null,"rebalanceTimeoutMs":10,"serverAssignor":null}}`
	if p != want {
		t.Errorf("payload %s\nwant    %s", p, want)
	}
	withClassic := *plain
	withClassic.ClassicMemberMetadata = &ClassicMemberMetadata{SessionTimeoutMs: 45000,
		SupportedProtocols: []ClassicProtocol{{Name: "range", Metadata: []byte{1}}}}
	b = mustValue(t, 0, &withClassic)
	// 01 (one tagged field) 00 (tag 0) 0F (size 4+1+6+2+1+1 = 15): 00 00 AF C8 |
	// 02 | 06 'range' | 02 01 | 00 | 00
	tail := []byte{0x01, 0x00, 0x0F, 0x00, 0x00, 0xAF, 0xC8, 0x02, 0x06, 'r', 'a', 'n', 'g', 'e', 0x02, 0x01, 0x00, 0x00}
	if !bytes.HasSuffix(b, tail) {
		t.Errorf("tagged field bytes % X, want suffix % X", b, tail)
	}
	_, p, _, _ = Format(0, key, b)
	want = want[:len(want)-2] + `,"classicMemberMetadata":{"sessionTimeoutMs":45000,"supportedProtocols":[{"name":"range","metadata":"AQ=="}]}}}`
	if p != want {
		t.Errorf("payload %s\nwant    %s", p, want)
	}
}
