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
