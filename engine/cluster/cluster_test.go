package cluster

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/log"
	"github.com/loglab/loglab/engine/storage"
)

func newCluster(t *testing.T) *Cluster {
	t.Helper()
	c, err := New(DefaultConfig(), storage.NewMem())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateTopic("orders", 3, 3, log.DefaultConfig()); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestProduceIsAllOrNothing(t *testing.T) {
	c := newCluster(t)
	_, err := c.Produce("orders", []Message{
		{Value: []byte("fine"), Partition: 0},
		{Value: []byte("bad"), Partition: 5},
	}, DefaultProduceOptions())
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
	got, err := c.Produce("orders", []Message{{Key: []byte("foobar"), Value: []byte("v"), Partition: -1}}, DefaultProduceOptions())
	if err != nil {
		t.Fatal(err)
	}
	if want := client.KeyPartition([]byte("foobar"), 3); got[0].Partition != want {
		t.Fatalf("key foobar went to %d, want %d", got[0].Partition, want)
	}
}

func TestRecordsCarryTheVirtualTime(t *testing.T) {
	c := newCluster(t)
	if _, err := c.Tick(1500 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Produce("orders", []Message{{Value: []byte("v"), Partition: 0}}, DefaultProduceOptions()); err != nil {
		t.Fatal(err)
	}
	recs, _ := c.topicByName["orders"].Partitions[0].Records(0, 1)
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

// A produce that one partition would refuse writes to no partition.
func TestProduceRefusedByOnePartitionWritesNothing(t *testing.T) {
	c := newCluster(t)
	cfg := log.DefaultConfig()
	cfg.MaxMessageBytes = 200
	if _, err := c.CreateTopic("small", 2, 1, cfg); err != nil {
		t.Fatal(err)
	}
	msgs := []Message{{Value: []byte("fits"), Partition: 0}, {Value: make([]byte, 300), Partition: 1}}
	if _, err := c.Produce("small", msgs, DefaultProduceOptions()); !errors.Is(err, log.ErrMessageTooLarge) {
		t.Fatalf("error %v, want MESSAGE_TOO_LARGE", err)
	}
	if n := c.topicByName["small"].Partitions[0].EndOffset(); n != 0 {
		t.Fatalf("partition 0 took %d records from a refused request", n)
	}
}

// Records of one produce call for one partition share batches of up to
// batch.size bytes, as a producer's accumulator fills them.
func TestProduceBatchesUpToBatchSize(t *testing.T) {
	c := newCluster(t)
	msgs := make([]Message, 10)
	for i := range msgs {
		msgs[i] = Message{Value: make([]byte, 92), Partition: 0} // 100 bytes with overhead
	}
	opts := DefaultProduceOptions()
	opts.BatchSize = 300
	if _, err := c.Produce("orders", msgs, opts); err != nil {
		t.Fatal(err)
	}
	l := c.topicByName["orders"].Partitions[0]
	batches, _ := l.BatchesIn(0)
	var counts []int32
	for _, b := range batches {
		counts = append(counts, b.Header.RecordCount)
	}
	if fmt.Sprint(counts) != "[3 3 3 1]" {
		t.Fatalf("records per batch %v, want [3 3 3 1]", counts)
	}
}

func TestTickRunsRetentionOnItsSchedule(t *testing.T) {
	c := newCluster(t)
	cfg := log.DefaultConfig()
	cfg.SegmentBytes = 200
	cfg.RetentionMs = 60_000
	if _, err := c.CreateTopic("short", 1, 1, cfg); err != nil {
		t.Fatal(err)
	}
	for range 10 {
		if _, err := c.Produce("short", []Message{{Value: make([]byte, 50), Partition: 0}}, DefaultProduceOptions()); err != nil {
			t.Fatal(err)
		}
	}
	// Records are 1 minute old after 1m, but the check only runs every 5m.
	hk, _ := c.Tick(4 * time.Minute)
	if len(hk.Deletions) != 0 {
		t.Fatalf("retention ran before log.retention.check.interval.ms: %+v", hk.Deletions)
	}
	hk, _ = c.Tick(time.Minute)
	if len(hk.Deletions) != 1 || hk.Deletions[0].AtMs != 300_000 {
		t.Fatalf("at 5m: %+v", hk.Deletions)
	}
	if l := c.topicByName["short"].Partitions[0]; l.StartOffset() != 10 {
		t.Fatalf("log start offset %d after every record expired", l.StartOffset())
	}
}
