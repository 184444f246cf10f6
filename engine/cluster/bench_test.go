package cluster

import (
	"fmt"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/log"
	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/storage"
)

// Benchmarks report ratios against limits measured in the same run
// (docs/architecture.md, "Benchmarks"). The limit of a simulated replicated produce is appending
// the same records to one log on an in-memory disk: everything the
// simulator adds (three replicas, the producer's batching and retries,
// Produce and Fetch requests on the simulated network, the scheduler, the
// controller's heartbeats, the high watermark) is the gap between them.

// benchRecords is one producer batch: 100 records of a 100-byte value.
const benchRecords = 100

func benchMessages() []Message {
	value := make([]byte, 100)
	for i := range value {
		value[i] = byte('a' + i%26)
	}
	msgs := make([]Message, benchRecords)
	for i := range msgs {
		msgs[i] = Message{Key: []byte(fmt.Sprintf("key-%03d", i)), Value: value, Partition: 0}
	}
	return msgs
}

// benchBatch holds the same records as one RecordBatch, as the producer
// builds it.
func benchBatch(msgs []Message, ts int64) *record.Batch {
	b := &record.Batch{BaseTimestamp: ts, MaxTimestamp: ts, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1,
		LastOffsetDelta: int32(len(msgs) - 1)}
	for i, m := range msgs {
		b.Records = append(b.Records, record.Record{OffsetDelta: int32(i), Key: m.Key, Value: m.Value})
	}
	return b
}

// BenchmarkReplicatedProduce produces 100-record batches with acks=all
// through a simulated 3-broker cluster (rf=3, min.insync.replicas=2,
// in-memory disks), each batch waiting for its acknowledgement, and in
// the same loop appends the same records to a bare log on an in-memory
// disk. It reports the simulator's records/s and sim/bare, its
// throughput as a fraction of the bare appends'. checker=every-step also
// runs the invariant checker after every event, as the VOPR does.
func BenchmarkReplicatedProduce(b *testing.B) {
	for _, every := range []bool{false, true} {
		name := "checker=off"
		if every {
			name = "checker=every-step"
		}
		b.Run(name, func(b *testing.B) { benchReplicatedProduce(b, every) })
	}
}

func benchReplicatedProduce(b *testing.B, everyStep bool) {
	c, err := New(DefaultConfig(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	// 16 MiB segments on both sides: long runs roll instead of growing
	// one in-memory file by hundreds of megabytes.
	if err := c.CreateTopic("bench", 1, 3, [][2]string{{"min.insync.replicas", "2"}, {"segment.bytes", "16777216"}}); err != nil {
		b.Fatal(err)
	}
	p, err := c.CreateProducer("p", client.DefaultProducerConfig()) // acks=all
	if err != nil {
		b.Fatal(err)
	}
	c.Checker().EveryStep = everyStep
	cfg := log.DefaultConfig()
	cfg.SegmentBytes = 16 << 20
	bare, _, err := log.Open(storage.NewMem(), "bare-0", cfg, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer bare.Close()
	msgs := benchMessages()
	b.ResetTimer()
	var simElapsed, bareElapsed time.Duration
	for range b.N {
		start := time.Now()
		ds, err := c.Produce(p, "bench", msgs)
		simElapsed += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		for _, d := range ds {
			if d.Err != 0 || d.Offset < 0 {
				b.Fatalf("delivery failed: %s", d.Err.Name())
			}
		}
		start = time.Now()
		if _, err := bare.AppendAsLeader(benchBatch(msgs, c.NowMs()), 0); err != nil {
			b.Fatal(err)
		}
		bareElapsed += time.Since(start)
	}
	b.StopTimer()
	if vs := c.Checker().Violations(); len(vs) > 0 {
		b.Fatalf("invariants broken: %v", vs)
	}
	if r, _, err := c.Replica("bench", 0, 0); err != nil || r.Log.EndOffset() != int64(b.N*benchRecords) {
		b.Fatalf("the leader's log does not hold the %d records produced (%v)", b.N*benchRecords, err)
	}
	records := float64(b.N * benchRecords)
	b.ReportMetric(records/simElapsed.Seconds(), "records/s")
	b.ReportMetric(records/bareElapsed.Seconds(), "bare-records/s")
	b.ReportMetric(bareElapsed.Seconds()/simElapsed.Seconds(), "sim/bare")
}
