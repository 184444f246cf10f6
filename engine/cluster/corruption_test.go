package cluster

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/broker"
	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/log"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/storage"
	"github.com/loglab/loglab/engine/storage/osfs"
)

// flipByteInTheMiddle corrupts one byte in the middle of a broker's first
// segment of tp, as a bad disk sector would: a record byte, which the
// batch CRC covers.
func flipByteInTheMiddle(t *testing.T, fs storage.FS, id int32, tp protocol.TopicPartition) string {
	t.Helper()
	name := path.Join(broker.PartitionDir(id, tp), log.FileName(0, log.LogSuffix))
	f, err := fs.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	raw, err := storage.Slice{File: f, Len: f.Size()}.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)/2] ^= 0xff
	if err := f.Truncate(0); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(raw); err != nil {
		t.Fatal(err)
	}
	return name
}

// The reproduction, in one process: ~2,000 records acknowledged
// with acks=all on three replicas, every broker stops, a byte flips in the
// middle of the log of the replica that the controller will elect once
// they are back (the last one left in the ISR), and they restart. That
// replica's recovery truncates half its log. It must say so, and it must
// not win: no acknowledged record may be lost, on any replica, while the
// two others hold it all.
func TestADamagedReplicaDoesNotWinAfterEveryBrokerRestarts(t *testing.T) {
	c := newTestCluster(t, 7)
	tp := protocol.TopicPartition{Topic: "orders", Partition: 0}
	if err := c.CreateTopic("orders", 1, 3, nil); err != nil {
		t.Fatal(err)
	}
	p, _ := c.CreateProducer("p1", client.DefaultProducerConfig())
	for round := range 4 {
		for _, d := range produceN(t, c, p, "orders", 500, fmt.Sprintf("r%d", round)) {
			if d.Err != protocol.None {
				t.Fatalf("produce: %+v", d)
			}
		}
	}
	if err := c.Tick(2 * time.Second); err != nil { // followers catch up
		t.Fatal(err)
	}
	acked := len(c.Acked())
	for id := 1; id <= 3; id++ {
		if err := c.CrashBroker(id, false); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Tick(12 * time.Second); err != nil { // sessions expire: every broker fenced
		t.Fatal(err)
	}
	info, _ := c.PartitionInfo("orders", 0)
	if len(info.ISR) != 1 {
		t.Fatalf("ISR %v once every broker is fenced, want the last member kept", info.ISR)
	}
	victim := info.ISR[0]
	file := flipByteInTheMiddle(t, c.disks[victim-1], victim, tp)
	c.DrainEvents()
	for id := 1; id <= 3; id++ {
		if err := c.RestartBroker(id); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Tick(15 * time.Second); err != nil {
		t.Fatal(err)
	}
	events := strings.Join(c.DrainEvents(), "\n")
	if !strings.Contains(events, fmt.Sprintf("b%d: Found invalid messages in log segment %s at byte offset ", victim, file)) {
		t.Errorf("the truncation was not told:\n%s", events)
	}
	info, _ = c.PartitionInfo("orders", 0)
	if info.Leader == victim || info.Leader < 0 {
		t.Errorf("leader %d after the restart (ISR %v): want a replica that kept the data, not the damaged %d\n%s", info.Leader, info.ISR, victim, events)
	}
	for id := int32(1); id <= 3; id++ {
		if id == victim {
			continue
		}
		r, _, _ := c.Replica("orders", 0, int(id))
		if r == nil || r.Log.EndOffset() < int64(acked) {
			t.Errorf("replica %d holds %v records, want all %d acknowledged", id, r.Log.EndOffset(), acked)
		}
	}
	if err := c.Tick(30 * time.Second); err != nil { // the damaged replica catches up and rejoins
		t.Fatal(err)
	}
	if info, _ = c.PartitionInfo("orders", 0); len(info.ISR) != 3 {
		t.Errorf("ISR %v, want every replica back in sync", info.ISR)
	}
	if testing.Verbose() {
		t.Logf("events:\n%s\n%s", events, strings.Join(c.DrainEvents(), "\n"))
	}
	noViolations(t, c)
}

// A replica whose log cannot be opened (a garbage leader-epoch-checkpoint:
// Kafka's CheckpointFile throws a KafkaStorageException and the log
// directory goes offline) is reported in the command that opened it, and
// its broker leads none of it: the controller elects another in-sync
// replica at once.
func TestAReplicaThatCannotBeOpenedIsOfflineAtOnceAndNotLed(t *testing.T) {
	c := newTestCluster(t, 7)
	tp := protocol.TopicPartition{Topic: "orders", Partition: 0}
	if err := c.CreateTopic("orders", 1, 3, nil); err != nil {
		t.Fatal(err)
	}
	p, _ := c.CreateProducer("p1", client.DefaultProducerConfig())
	for _, d := range produceN(t, c, p, "orders", 20, "a") {
		if d.Err != protocol.None {
			t.Fatalf("produce: %+v", d)
		}
	}
	if err := c.Tick(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	info, _ := c.PartitionInfo("orders", 0)
	victim := info.Replicas[0] // the preferred leader
	// Stop every broker; the victim is fenced last, so it is the one the
	// controller would elect first when it is back.
	for _, id := range []int32{info.Replicas[1], info.Replicas[2], victim} {
		if err := c.CrashBroker(int(id), false); err != nil {
			t.Fatal(err)
		}
		if err := c.Tick(10 * time.Second); err != nil {
			t.Fatal(err)
		}
	}
	if info, _ = c.PartitionInfo("orders", 0); !slices.Equal(info.ISR, []int32{victim}) {
		t.Fatalf("ISR %v, want only %d left", info.ISR, victim)
	}
	f, err := c.disks[victim-1].Create(path.Join(broker.PartitionDir(victim, tp), log.EpochCheckpointFile))
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("garbage\n"))
	f.Close()
	c.DrainEvents()
	for id := 1; id <= 3; id++ {
		if err := c.RestartBroker(id); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.RunUntil(func() bool { return c.allUnfenced() }, time.Minute); err != nil {
		t.Fatal(err)
	}
	events := strings.Join(c.DrainEvents(), "\n")
	if !strings.Contains(events, fmt.Sprintf("b%d: cannot open orders/0", victim)) || !strings.Contains(events, fmt.Sprintf("controller: broker %d reports orders/0 offline", victim)) {
		t.Errorf("the offline replica was not told as the brokers came back:\n%s", events)
	}
	info, _ = c.PartitionInfo("orders", 0)
	// No other replica is in sync: without unclean.leader.election.enable
	// the partition stays offline, as in Kafka, rather than be led by a
	// broker that cannot serve it.
	if info.Leader != -1 {
		t.Errorf("leader %d (ISR %v), want none: broker %d cannot open the partition and no other replica is in sync:\n%s", info.Leader, info.ISR, victim, events)
	}
	if r, _, _ := c.Replica("orders", 0, int(victim)); r != nil && r.IsLeader() {
		t.Errorf("broker %d claims to lead a partition it cannot open", victim)
	}
	if !slices.Contains(c.Broker(int(victim)).Offline(), tp) {
		t.Errorf("broker %d does not list orders/0 offline", victim)
	}
	noViolations(t, c)
}

// The checker's record of acknowledged data survives a restart on real
// storage: records lost while the cluster was down (here, cut off every
// replica's log) are reported once it is back, not forgotten with the
// process that saw them acknowledged.
func TestAcknowledgedDataLostAcrossARestartIsReported(t *testing.T) {
	dir := t.TempDir()
	cfg := DefaultConfig()
	cfg.MetadataDir = dir
	c, err := New(cfg, osfs.New(dir))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CreateTopic("orders", 1, 3, nil); err != nil {
		t.Fatal(err)
	}
	p, _ := c.CreateProducer("p", client.DefaultProducerConfig())
	for _, d := range produceN(t, c, p, "orders", 20, "kept") {
		if d.Err != protocol.None {
			t.Fatalf("produce: %+v", d)
		}
	}
	if err := c.Tick(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	// Every replica loses its log while the cluster is down.
	fs := osfs.New(dir)
	tp := protocol.TopicPartition{Topic: "orders", Partition: 0}
	for id := int32(1); id <= 3; id++ {
		if err := fs.RemoveAll(broker.PartitionDir(id, tp)); err != nil {
			t.Fatal(err)
		}
	}
	c2, err := New(cfg, osfs.New(dir))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c2.Close() })
	if err := c2.Tick(15 * time.Second); err != nil {
		t.Fatal(err)
	}
	lost := 0
	for _, v := range c2.Checker().Check() {
		if v.Invariant == "acked-record-lost" {
			lost++
		}
	}
	if lost != 20 {
		t.Fatalf("%d acknowledged records reported lost after the restart, want all 20; violations: %v", lost, c2.Checker().Violations())
	}
}
