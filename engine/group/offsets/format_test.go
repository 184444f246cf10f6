package offsets

import "testing"

func mustKey(t *testing.T, k Key) []byte {
	t.Helper()
	b, err := EncodeKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustValue(t *testing.T, version int16, v Value) []byte {
	t.Helper()
	b, err := EncodeValue(version, v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The expected strings of the first cases are those of Kafka's
// DumpLogSegmentsTest.testOffsetsMessageParser (apache/kafka 1eb7644349cb);
// the others are worked out from the generated JsonConverters' rules.
func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		name          string
		offset        int64
		key, value    []byte
		wantKey       string
		wantPayload   string
		wantNoPayload bool
	}{
		{
			name:        "Kafka: ConsumerGroupMetadata",
			key:         mustKey(t, &ConsumerGroupMetadataKey{GroupID: "group"}),
			value:       mustValue(t, 0, &ConsumerGroupMetadataValue{Epoch: 10}),
			wantKey:     `{"type":"3","data":{"groupId":"group"}}`,
			wantPayload: `{"version":"0","data":{"epoch":10}}`,
		},
		{
			// Kafka decodes the consumer protocol's subscription and
			// assignment when it can; these bytes are not one, so both
			// print as base64, in Kafka as in loglab.
			name: "Kafka: GroupMetadata v4 with opaque member bytes",
			key:  mustKey(t, &GroupMetadataKey{Group: "group"}),
			value: mustValue(t, 4, &GroupMetadataValue{ProtocolType: "consumer", Protocol: strp("range"),
				Leader: strp("member"), Generation: 10, CurrentStateTimestamp: -1,
				Members: []MemberMetadata{{MemberID: "member", ClientID: "client", ClientHost: "host",
					GroupInstanceID: strp("instance"), SessionTimeout: 100, RebalanceTimeout: 1000,
					Subscription: []byte("Subscription"), Assignment: []byte("Assignment")}}}),
			wantKey: `{"type":"2","data":{"group":"group"}}`,
			wantPayload: `{"version":"4","data":{"protocolType":"consumer","generation":10,"protocol":"range",` +
				`"leader":"member","currentStateTimestamp":-1,"members":[{"memberId":"member",` +
				`"groupInstanceId":"instance","clientId":"client","clientHost":"host",` +
				`"rebalanceTimeout":1000,"sessionTimeout":100,"subscription":"U3Vic2NyaXB0aW9u",` +
				`"assignment":"QXNzaWdubWVudA=="}]}}`,
		},
		{
			// A real consumer group: the subscription and assignment are
			// ConsumerProtocolSubscription/Assignment v3, written out by
			// hand as ConsumerProtocol.serializeSubscription/Assignment
			// write them for Kafka's test:
			//   subscription: 00 03 | topics: count 1, 00 03 'foo' |
			//     userData null FF FF FF FF | ownedPartitions: count 1,
			//     00 03 'foo', partitions count 1, 0 | generationId 0 |
			//     rackId 00 04 'rack'
			//   assignment: 00 03 | assignedPartitions: count 1,
			//     00 03 'foo', partitions count 1, 0 | userData null
			name: "Kafka: GroupMetadata v4 with the consumer protocol decoded",
			key:  mustKey(t, &GroupMetadataKey{Group: "group"}),
			value: mustValue(t, 4, &GroupMetadataValue{ProtocolType: "consumer", Protocol: strp("range"),
				Leader: strp("member"), Generation: 10, CurrentStateTimestamp: -1,
				Members: []MemberMetadata{{MemberID: "member", ClientID: "client", ClientHost: "host",
					GroupInstanceID: strp("instance"), SessionTimeout: 100, RebalanceTimeout: 1000,
					Subscription: []byte{0, 3, 0, 0, 0, 1, 0, 3, 'f', 'o', 'o', 0xFF, 0xFF, 0xFF, 0xFF,
						0, 0, 0, 1, 0, 3, 'f', 'o', 'o', 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 'r', 'a', 'c', 'k'},
					Assignment: []byte{0, 3, 0, 0, 0, 1, 0, 3, 'f', 'o', 'o', 0, 0, 0, 1, 0, 0, 0, 0,
						0xFF, 0xFF, 0xFF, 0xFF}}}}),
			wantKey: `{"type":"2","data":{"group":"group"}}`,
			wantPayload: `{"version":"4","data":{"protocolType":"consumer","generation":10,"protocol":"range",` +
				`"leader":"member","currentStateTimestamp":-1,"members":[{"memberId":"member",` +
				`"groupInstanceId":"instance","clientId":"client","clientHost":"host",` +
				`"rebalanceTimeout":1000,"sessionTimeout":100,"subscription":{"topics":["foo"],` +
				`"userData":null,"ownedPartitions":[{"topic":"foo","partitions":[0]}],` +
				`"generationId":0,"rackId":"rack"},"assignment":{"assignedPartitions":` +
				`[{"topic":"foo","partitions":[0]}],"userData":null}}]}}`,
		},
		{
			// Not the consumer protocol (e.g. Connect): bytes stay base64.
			name: "connect group keeps bytes",
			key:  mustKey(t, &GroupMetadataKey{Group: "c"}),
			value: mustValue(t, 3, &GroupMetadataValue{ProtocolType: "connect", Generation: 1, CurrentStateTimestamp: 0,
				Members: []MemberMetadata{{MemberID: "m", ClientID: "c", ClientHost: "h", Subscription: []byte{0, 0, 0, 0, 0, 0}, Assignment: []byte{}}}}),
			wantKey: `{"type":"2","data":{"group":"c"}}`,
			wantPayload: `{"version":"3","data":{"protocolType":"connect","generation":1,"protocol":null,"leader":null,` +
				`"currentStateTimestamp":0,"members":[{"memberId":"m","groupInstanceId":null,"clientId":"c","clientHost":"h",` +
				`"rebalanceTimeout":0,"sessionTimeout":0,"subscription":"AAAAAAAA","assignment":""}]}}`,
		},
		{
			// Kafka's "any parsing error is swallowed" case: a
			// ConsumerGroupMemberMetadataValue with the generated
			// defaults (strings "", even the nullable ones, since their
			// schema gives no "default": "null"; rebalanceTimeoutMs -1)
			// under a ConsumerGroupMetadataKey. Its bytes
			// 01 01 01 01 | 01 | 01 01 | 01 | FF FF FF FF | 01 | 00 read
			// as epoch 0x01010101, one tagged field, tag 1, size
			// FF FF FF FF 01 = 2^29-1, and 1 byte left.
			name: "Kafka: value of another record type",
			key:  mustKey(t, &ConsumerGroupMetadataKey{GroupID: "group"}),
			value: mustValue(t, 0, &ConsumerGroupMemberMetadataValue{InstanceID: strp(""), RackID: strp(""),
				SubscribedTopicNames: []string{}, SubscribedTopicRegex: strp(""), RebalanceTimeoutMs: -1, ServerAssignor: strp("")}),
			wantKey: "Error at offset 0, skipping. Could not read record with version 0 from value's buffer due to: " +
				"Error reading byte array of 536870911 byte(s): only 1 byte(s) available.",
			wantNoPayload: true,
		},
		{
			name:        "Kafka: tombstone",
			key:         mustKey(t, &ConsumerGroupMetadataKey{GroupID: "group"}),
			wantKey:     `{"type":"3","data":{"groupId":"group"}}`,
			wantPayload: "<DELETE>",
		},
		{
			name:          "Kafka: unknown record type",
			key:           []byte{0x7F, 0xFF, 0x00, 0x05, 'g', 'r', 'o', 'u', 'p'},
			value:         mustValue(t, 0, &ConsumerGroupMetadataValue{Epoch: 10}),
			wantKey:       "Unknown record type 32767 at offset 0, skipping.",
			wantNoPayload: true,
		},
		{
			// The OffsetCommitValue v3 Kafka 4.0 writes: leaderEpoch
			// present, expireTimestamp absent.
			name:        "offset commit v3",
			offset:      12,
			key:         golden[0].keyHex,
			value:       golden[0].valHex,
			wantKey:     `{"type":"1","data":{"group":"g1","topic":"orders","partition":2}}`,
			wantPayload: `{"version":"3","data":{"offset":42,"leaderEpoch":5,"metadata":"","commitTimestamp":1700000000000}}`,
		},
		{
			// v1 has expireTimestamp and no leaderEpoch.
			name:        "offset commit v1",
			key:         golden[1].keyHex,
			value:       golden[1].valHex,
			wantKey:     `{"type":"1","data":{"group":"g","topic":"t","partition":0}}`,
			wantPayload: `{"version":"1","data":{"offset":7,"metadata":"m","commitTimestamp":1000,"expireTimestamp":2000}}`,
		},
		{
			// An offset deletion (OffsetDelete, or expiry) is a tombstone.
			name:        "offset tombstone",
			key:         golden[0].keyHex,
			wantKey:     `{"type":"1","data":{"group":"g1","topic":"orders","partition":2}}`,
			wantPayload: "<DELETE>",
		},
		{
			// Empty group: protocol and leader null; no members.
			name:        "empty group v3",
			key:         mustKey(t, &GroupMetadataKey{Group: "g"}),
			value:       mustValue(t, 3, &GroupMetadataValue{ProtocolType: "consumer", Generation: 3, CurrentStateTimestamp: 5}),
			wantKey:     `{"type":"2","data":{"group":"g"}}`,
			wantPayload: `{"version":"3","data":{"protocolType":"consumer","generation":3,"protocol":null,"leader":null,"currentStateTimestamp":5,"members":[]}}`,
		},
		{
			// Jackson's escaping: quote, backslash, \n, other control
			// characters as \u00XX; non-ASCII as is.
			name:        "escaping",
			key:         mustKey(t, &OffsetCommitKey{Group: "g\"\\\n\x01é", Topic: "t", Partition: 0}),
			wantKey:     `{"type":"1","data":{"group":"g\"\\\n\u0001é","topic":"t","partition":0}}`,
			wantPayload: "<DELETE>",
		},
		{
			name:          "corrupt value",
			offset:        7,
			key:           golden[0].keyHex,
			value:         golden[0].valHex[:5],
			wantKey:       "Error at offset 7, skipping. Could not read record with version 3 from value's buffer due to: java.nio.BufferUnderflowException.",
			wantNoPayload: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, p, ok, err := Format(tc.offset, tc.key, tc.value)
			if err != nil {
				t.Fatal(err)
			}
			if k != tc.wantKey {
				t.Errorf("key\n got %s\nwant %s", k, tc.wantKey)
			}
			if ok == tc.wantNoPayload || p != tc.wantPayload {
				t.Errorf("payload\n got %s (%v)\nwant %s", p, ok, tc.wantPayload)
			}
		})
	}
}

// Kafka's parser throws on a record without a key and the dump dies.
func TestFormatMissingKey(t *testing.T) {
	_, _, _, err := Format(0, nil, nil)
	want := "Failed to decode message at offset 0 using offset topic decoder (message had a missing key)"
	if err == nil || err.Error() != want {
		t.Fatalf("Format(nil key) error = %v, want %q", err, want)
	}
}
