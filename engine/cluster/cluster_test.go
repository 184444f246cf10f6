package cluster

import (
	"errors"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/client"
)

func newCluster(t *testing.T) *Cluster {
	t.Helper()
	c, err := New(Config{Brokers: 3, Controllers: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateTopic("orders", 3, 3); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestProduceIsAllOrNothing(t *testing.T) {
	c := newCluster(t)
	_, err := c.Produce("orders", []Message{
		{Value: []byte("fine"), Partition: 0},
		{Value: []byte("bad"), Partition: 5},
	})
	if !errors.Is(err, ErrUnknownTopicOrPartition) {
		t.Fatalf("error %v, want UNKNOWN_TOPIC_OR_PARTITION", err)
	}
	for i, t0 := range c.topicByName["orders"].Partitions {
		if t0.EndOffset() != 0 {
			t.Fatalf("partition %d got a record from a rejected request", i)
		}
	}
}

func TestKeyedRecordsFollowMurmur2(t *testing.T) {
	c := newCluster(t)
	got, err := c.Produce("orders", []Message{{Key: []byte("foobar"), Value: []byte("v"), Partition: -1}})
	if err != nil {
		t.Fatal(err)
	}
	if want := client.KeyPartition([]byte("foobar"), 3); got[0].Partition != want {
		t.Fatalf("key foobar went to %d, want %d", got[0].Partition, want)
	}
}

func TestRecordsCarryTheVirtualTime(t *testing.T) {
	c := newCluster(t)
	if err := c.Tick(1500 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Produce("orders", []Message{{Value: []byte("v"), Partition: 0}}); err != nil {
		t.Fatal(err)
	}
	recs, _ := c.topicByName["orders"].Partitions[0].Read(0, 1)
	if got, want := recs[0].Timestamp, c.clock.NowMs(); got != want || got%1000 != 500 {
		t.Fatalf("timestamp %d, want the virtual now %d", got, want)
	}
}

func TestTopicNamesFollowKafkasRule(t *testing.T) {
	for _, bad := range []string{"", ".", "..", "a/b", "a b", "ü", string(make([]byte, 250))} {
		if err := ValidateTopicName(bad); !errors.Is(err, ErrInvalidTopic) {
			t.Errorf("topic name %q accepted", bad)
		}
	}
	for _, good := range []string{"orders", "a.b_c-d", "__consumer_offsets"} {
		if err := ValidateTopicName(good); err != nil {
			t.Errorf("topic name %q rejected: %v", good, err)
		}
	}
}
