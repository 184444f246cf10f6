package cluster

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/protocol"
)

// Reproduction 3 of issue 26: a leader whose disk is full. The producer
// is told KAFKA_STORAGE_ERROR (not CORRUPT_MESSAGE), the replica goes
// offline on that broker and the controller moves the leadership, as
// Kafka's log-dir failure handling does; once space is freed and the
// broker restarts, it recovers the torn tail, catches up and rejoins,
// and nothing acknowledged is lost.
func TestAFullDiskTakesTheReplicaOfflineAndLosesNothingAcknowledged(t *testing.T) {
	c := newTestCluster(t, 11)
	tp := protocol.TopicPartition{Topic: "orders", Partition: 0}
	if err := c.CreateTopic("orders", 1, 3, [][2]string{{"min.insync.replicas", "2"}}); err != nil {
		t.Fatal(err)
	}
	p, _ := c.CreateProducer("p1", client.DefaultProducerConfig())
	for _, d := range produceN(t, c, p, "orders", 20, "a") {
		if d.Err != protocol.None {
			t.Fatalf("produce: %+v", d)
		}
	}
	info, _ := c.PartitionInfo("orders", 0)
	victim := info.Leader
	// Some room left: the batch that crosses it is written in part, as
	// write(2) does on a full disk, and recovery must cut it later.
	if err := c.FillDisk(int(victim), 40, false); err != nil {
		t.Fatal(err)
	}
	c.DrainEvents()
	once := client.DefaultProducerConfig()
	once.Retries, once.EnableIdempotence = 0, false
	p0, _ := c.CreateProducer("p0", once)
	ds := produceN(t, c, p0, "orders", 1, "full")
	if ds[0].Err != protocol.KafkaStorageError {
		t.Fatalf("the producer was told %s, want KAFKA_STORAGE_ERROR", ds[0].Err.Name())
	}
	if _, err := c.RunUntil(func() bool {
		i, _ := c.PartitionInfo("orders", 0)
		return i.Leader != victim && i.Leader >= 0
	}, time.Minute); err != nil {
		t.Fatal(err)
	}
	events := strings.Join(c.DrainEvents(), "\n")
	for _, want := range []string{
		fmt.Sprintf("b%d: Error while appending records to orders-0 in dir broker-%d: write broker-%d/orders-0/00000000000000000000.log: no space left on device", victim, victim, victim),
		fmt.Sprintf("b%d: Stopping serving replicas in dir broker-%d because the log directory has failed: orders-0 is offline", victim, victim),
		fmt.Sprintf("controller: broker %d reports orders/0 offline", victim),
	} {
		if !strings.Contains(events, want) {
			t.Errorf("the events lack %q:\n%s", want, events)
		}
	}
	if !slices.Contains(c.Broker(int(victim)).Offline(), tp) {
		t.Errorf("broker %d does not list orders/0 offline", victim)
	}
	// The page says so too (not "no replica yet").
	for _, tv := range c.View().Topics {
		for _, pv := range tv.Partitions {
			for _, r := range pv.Replicas {
				if pv.Topic == "orders" && r.Broker == int(victim) && r.Role() != "offline" {
					t.Errorf("the view shows broker %d's offline replica as %q", victim, r.Role())
				}
			}
		}
	}
	if info, _ = c.PartitionInfo("orders", 0); slices.Contains(info.ISR, victim) {
		t.Errorf("ISR %v still holds broker %d, whose replica is offline", info.ISR, victim)
	}
	// The other replicas go on: a producer that retries is answered by
	// the new leader.
	for _, d := range produceN(t, c, p, "orders", 10, "b") {
		if d.Err != protocol.None {
			t.Fatalf("produce after the failover: %+v", d)
		}
	}
	// Space freed, the broker restarted: its recovery cuts the torn batch,
	// it catches up and rejoins the ISR.
	if err := c.FreeDisk(int(victim)); err != nil {
		t.Fatal(err)
	}
	if err := c.CrashBroker(int(victim), false); err != nil {
		t.Fatal(err)
	}
	if err := c.RestartBroker(int(victim)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Stabilize(); err != nil {
		t.Fatal(err)
	}
	if info, _ = c.PartitionInfo("orders", 0); !slices.Contains(info.ISR, victim) {
		t.Errorf("ISR %v: broker %d did not rejoin after its restart", info.ISR, victim)
	}
	r, _, _ := c.Replica("orders", 0, int(victim))
	if r == nil || r.Log.EndOffset() != 30 {
		t.Errorf("broker %d's replica ends at %v, want the 30 acknowledged records", victim, r)
	}
	if testing.Verbose() {
		t.Logf("events:\n%s\n%s", events, strings.Join(c.DrainEvents(), "\n"))
	}
	noViolations(t, c)
}

// Two of three disks full, the leader's among them: the third broker
// leads with an ISR of itself, but the follower whose replica went offline
// had fetched within replica.lag.time.max.ms, so the high watermark still
// waited for it (Partition.maybeIncrementLeaderHW's
// shouldWaitForReplicaToJoinIsr) and nothing asked again once the lag had
// passed: the producer's retries were never answered and the record,
// written, was reported failed after delivery.timeout.ms. Kafka's
// appendRecordsToLeader asks for the high watermark after every append, a
// duplicate retry's too: the retry after request.timeout.ms is
// acknowledged, and the record is in the log once.
func TestARetryMovesTheHighWatermarkOnceTheOfflineFollowerHasLapsed(t *testing.T) {
	c := newTestCluster(t, 11)
	if err := c.CreateTopic("orders", 1, 3, nil); err != nil {
		t.Fatal(err)
	}
	idempotent := client.DefaultProducerConfig()
	idempotent.EnableIdempotence = true // Kafka's default: the retry is a duplicate the leader recognises
	p, _ := c.CreateProducer("p1", idempotent)
	if ds := produceN(t, c, p, "orders", 1, "before"); ds[0].Err != protocol.None {
		t.Fatalf("produce: %+v", ds[0])
	}
	info, _ := c.PartitionInfo("orders", 0)
	var survivor int32
	for _, id := range info.Replicas {
		if id != info.Leader && survivor == 0 {
			survivor = id
			continue
		}
		if err := c.FillDisk(int(id), 0, false); err != nil {
			t.Fatal(err)
		}
	}
	ds := produceN(t, c, p, "orders", 1, "full")
	if ds[0].Err != protocol.None {
		t.Fatalf("with one disk left the producer was told %s, want the record acknowledged by broker %d alone", ds[0].Err.Name(), survivor)
	}
	after, _ := c.PartitionInfo("orders", 0)
	if after.Leader != survivor || !slices.Equal(after.ISR, []int32{survivor}) {
		t.Fatalf("leader %d ISR %v, want broker %d alone", after.Leader, after.ISR, survivor)
	}
	recs, err := c.Broker(int(survivor)).Replica(protocol.TopicPartition{Topic: "orders", Partition: 0}).Log.Records(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var held []string
	for _, r := range recs {
		held = append(held, string(r.Value))
	}
	if !slices.Equal(held, []string{"before-0", "full-0"}) {
		t.Fatalf("broker %d holds %q, want each record once", survivor, held)
	}
}
