package consumerprotocol

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/loglab/loglab/engine/group/assignor"
)

// The bytes Kafka's ConsumerProtocol.serializeSubscription writes for a v3
// subscription, laid out by hand from ConsumerProtocolSubscription.json.
func TestSubscriptionV3Bytes(t *testing.T) {
	rack := "r1"
	s := Subscription{Topics: []string{"a"}, UserData: []byte{9},
		OwnedPartitions: []assignor.TopicPartition{{Topic: "a", Partition: 0}, {Topic: "a", Partition: 2}},
		GenerationID:    7, RackID: &rack}
	want := []byte{
		0, 3, // version
		0, 0, 0, 1, 0, 1, 'a', // topics
		0, 0, 0, 1, 9, // userData
		0, 0, 0, 1, 0, 1, 'a', 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 2, // ownedPartitions
		0, 0, 0, 7, // generationId
		0, 2, 'r', '1', // rackId
	}
	got := EncodeSubscription(s)
	if !bytes.Equal(got, want) {
		t.Fatalf("encoded\n%v\nwant\n%v", got, want)
	}
	back, err := DecodeSubscription(got)
	if err != nil || !reflect.DeepEqual(back, s) {
		t.Fatalf("decoded %+v, %v; want %+v", back, err, s)
	}
}

// A v0 subscription (topics and userData only) reads with generation -1 and
// nothing owned, as Kafka fills absent fields with their defaults.
func TestSubscriptionV0DecodesWithDefaults(t *testing.T) {
	v0 := []byte{0, 0, 0, 0, 0, 1, 0, 1, 't', 0xff, 0xff, 0xff, 0xff}
	s, err := DecodeSubscription(v0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s, Subscription{Topics: []string{"t"}, GenerationID: -1}) {
		t.Fatalf("got %+v", s)
	}
}

func TestAssignmentRoundTripAndBytes(t *testing.T) {
	a := Assignment{Partitions: []assignor.TopicPartition{{Topic: "a", Partition: 1}, {Topic: "b", Partition: 0}}}
	want := []byte{0, 3, 0, 0, 0, 2, 0, 1, 'a', 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 'b', 0, 0, 0, 1, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}
	got := EncodeAssignment(a)
	if !bytes.Equal(got, want) {
		t.Fatalf("encoded %v, want %v", got, want)
	}
	back, err := DecodeAssignment(got)
	if err != nil || !reflect.DeepEqual(back, a) {
		t.Fatalf("decoded %+v, %v", back, err)
	}
	if empty, err := DecodeAssignment(nil); err != nil || len(empty.Partitions) != 0 {
		t.Fatalf("empty assignment bytes: %+v, %v", empty, err)
	}
}

func TestTruncatedBytesAreMalformed(t *testing.T) {
	b := EncodeSubscription(Subscription{Topics: []string{"topic"}, GenerationID: -1})
	for n := 1; n < len(b); n++ {
		if _, err := DecodeSubscription(b[:n]); !errors.Is(err, ErrMalformed) {
			t.Fatalf("truncated to %d bytes: err %v", n, err)
		}
	}
}

func TestStickyUserDataRoundTrip(t *testing.T) {
	prev := []assignor.TopicPartition{{Topic: "t", Partition: 3}}
	got, gen, err := DecodeStickyUserData(EncodeStickyUserData(prev, 4))
	if err != nil || gen != 4 || !reflect.DeepEqual(got, prev) {
		t.Fatalf("got %v gen %d err %v", got, gen, err)
	}
}
