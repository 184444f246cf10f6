package lab

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/cluster"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/sim"
)

// consoleProducer is the producer `produce` uses when none is named: the
// Java producer's defaults, like kafka-console-producer.
const consoleProducer = "console-producer"

var producerCreateCommand = &command{
	name: "producer create",
	usage: "producer create NAME [acks=all] [linger.ms=5] [batch.size=16384] [max.in.flight.requests.per.connection=5] [retries=2147483647] " +
		"[retry.backoff.ms=100] [retry.backoff.max.ms=1000] [max.block.ms=60000] [request.timeout.ms=30000] [delivery.timeout.ms=120000] [compression.type=none] " +
		"[enable.idempotence=true] [transactional.id=ID] [transaction.timeout.ms=60000]",
	summary: "create a producer; max.in.flight is short for max.in.flight.requests.per.connection; idempotent by default (Kafka 3.0+) unless acks, retries or max.in.flight rule it out; " +
		"with transactional.id it calls initTransactions() at once, as an application does",
	run: func(l *Lab, a *args) (string, error) {
		if err := l.requireCluster(); err != nil {
			return "", err
		}
		name, err := onePositional(a, "producer name")
		if err != nil {
			return "", err
		}
		cfg := client.DefaultProducerConfig()
		acks := a.str("acks", "all")
		cfg.Linger = a.millisOrZero("linger.ms", cfg.Linger)
		cfg.BatchSize = a.integer("batch.size", cfg.BatchSize, 0, 1<<24)
		cfg.MaxInFlight = a.integer("max.in.flight.requests.per.connection", cfg.MaxInFlight, 1, 100)
		if a.has("max.in.flight") {
			cfg.MaxInFlight = a.integer("max.in.flight", cfg.MaxInFlight, 1, 100)
		}
		cfg.Retries = a.integer("retries", cfg.Retries, 0, math.MaxInt32)
		cfg.RetryBackoff = a.millisOrZero("retry.backoff.ms", cfg.RetryBackoff)
		cfg.RetryBackoffMax = a.millisOrZero("retry.backoff.max.ms", cfg.RetryBackoffMax)
		cfg.MaxBlock = a.millisOrZero("max.block.ms", cfg.MaxBlock)
		cfg.RequestTimeout = a.millis("request.timeout.ms", cfg.RequestTimeout)
		cfg.DeliveryTimeout = a.millis("delivery.timeout.ms", cfg.DeliveryTimeout)
		codec := a.enum("compression.type", "none", compressionTypes()...)
		cfg.EnableIdempotence = a.boolean("enable.idempotence", true)
		cfg.TransactionalID = a.str("transactional.id", "")
		cfg.TransactionTimeout = a.millis("transaction.timeout.ms", cfg.TransactionTimeout)
		explicit := map[string]bool{"enable.idempotence": a.has("enable.idempotence"), "transactional.id": a.has("transactional.id")}
		if err := a.finish(); err != nil {
			return "", err
		}
		switch acks {
		case "all", "-1":
			cfg.Acks = -1
		case "1":
			cfg.Acks = 1
		case "0":
			cfg.Acks = 0
		default:
			return "", fmt.Errorf("acks=%s: must be all, -1, 0 or 1", acks)
		}
		if cfg.Compression, err = record.ParseCompression(codec); err != nil {
			return "", err
		}
		if a.has("transactional.id") && cfg.TransactionalID == "" {
			return "", fmt.Errorf("transactional.id must not be empty")
		}
		if err := cfg.ValidateIdempotence(func(key string) bool { return explicit[key] }); err != nil {
			return "", err
		}
		if cfg.DeliveryTimeout < cfg.Linger+cfg.RequestTimeout {
			return "", fmt.Errorf("delivery.timeout.ms should be equal to or larger than linger.ms + request.timeout.ms (Kafka refuses this configuration)")
		}
		p, err := l.cluster.CreateProducer(name, cfg)
		if err != nil {
			return "", err
		}
		created := fmt.Sprintf("created producer %s: %s", name, cfg.Describe())
		if !p.Transactional() {
			return created, nil
		}
		out, err := initTransactions(l, p)
		if err != nil {
			var failed *txnFailed
			if errors.As(err, &failed) {
				return "", &txnFailed{created + "\n" + failed.msg}
			}
			return "", err
		}
		return created + "\n" + out, nil
	},
}

var produceCommand = &command{
	name:    "produce",
	usage:   "produce TOPIC value=V|tombstone=true [key=K] [partition=N] [count=N] [interval=0s] [producer=NAME]",
	summary: "send records and wait for their delivery reports; keyed records go to murmur2(key) % partitions, unkeyed ones to a sticky partition; {i} in key or value counts 0,1,2...; interval= sends one record every interval of virtual time",
	run: func(l *Lab, a *args) (string, error) {
		if err := l.requireCluster(); err != nil {
			return "", err
		}
		topic, err := onePositional(a, "topic name")
		if err != nil {
			return "", err
		}
		hasKey := a.has("key")
		key := a.str("key", "")
		hasValue := a.has("value")
		value := a.str("value", "")
		isTombstone := a.boolean("tombstone", false)
		partition := a.integer("partition", -1, 0, cluster.MaxPartitions-1)
		count := a.integer("count", 1, 1, math.MaxInt32)
		producerName := a.str("producer", "")
		interval := a.duration("interval", 0)
		if err := a.finish(); err != nil {
			return "", err
		}
		// The records are sent over (count-1) intervals: refused up front if
		// that passes the clock's maximum (divided, as the product may
		// overflow).
		if interval > 0 && count > 1 && interval > l.cluster.Room()/time.Duration(count-1) {
			return "", fmt.Errorf("count=%d interval=%v would take virtual time past its maximum of %s", count, interval, sim.MaxElapsedText)
		}
		switch {
		case hasValue && isTombstone:
			return "", fmt.Errorf("a tombstone has no value: give value= or tombstone=true, not both")
		case !hasValue && !isTombstone:
			return "", fmt.Errorf("missing value= (or tombstone=true for a null value)")
		}
		info, err := l.cluster.PartitionInfo(topic, max(partition, 0))
		if err != nil || info == nil {
			return "", err
		}
		if producerName != "" && l.cluster.Producer(producerName) == nil {
			return "", fmt.Errorf("no producer %q; create it with `producer create %s acks=all`", producerName, producerName)
		}
		if err := l.checkProduce(count, key, value, hasKey, len(info.Replicas)); err != nil {
			return "", err
		}
		if interval > 0 && count > 1 {
			span := interval * time.Duration(count-1) // within the clock's room: checked above
			if err := l.costCheck(fmt.Sprintf("count=%d interval=%v", count, interval), span, 0, func(fit time.Duration) string {
				return fmt.Sprintf("send at most %d records at this interval per command", 1+int64(fit/interval))
			}); err != nil {
				return "", err
			}
		}
		// Only now, with everything checked, may the console producer be
		// created: a refused produce leaves no producer behind.
		p, err := l.producer(producerName)
		if err != nil {
			return "", err
		}
		// Every key and value is expanded into one buffer sized up front:
		// two small allocations per record were most of the command's
		// garbage, which WASM's single-threaded collector pays for.
		var size int64
		if hasValue {
			size += expandedBytes(value, count)
		}
		if hasKey {
			size += expandedBytes(key, count)
		}
		makeHeapRoom(produceHeapBytes(count, size))
		msgs := make([]cluster.Message, count)
		buf := make([]byte, 0, size)
		valueT, keyT, index := newTemplate(value), newTemplate(key), newIndexDigits()
		for i := range msgs {
			msgs[i] = cluster.Message{Partition: int32(partition)}
			if hasValue {
				msgs[i].Value, buf = valueT.appendTo(buf, index)
			}
			if hasKey {
				msgs[i].Key, buf = keyT.appendTo(buf, index)
			}
			index.next()
		}
		var ds []*client.Delivery
		if interval > 0 {
			ds, err = produceEvery(l.cluster, p, topic, msgs, interval)
		} else {
			ds, err = l.cluster.Produce(p, topic, msgs)
		}
		if err != nil {
			return "", err
		}
		report, failed := describeDeliveries(p, ds)
		if failed {
			return "", &recordsFailed{report: report}
		}
		return report, nil
	},
}

// produceRecordOverhead bounds what a record takes on disk beyond its key
// and value: its own header (offset and timestamp deltas, lengths: a few
// bytes) and, at worst alone in its batch, the batch's 61-byte header.
const produceRecordOverhead = 80

// checkProduce refuses, before anything is sent, a produce past the
// lab's limits: records per command, key and value bytes per command, and
// the bytes the cluster would hold once every replica has them.
func (l *Lab) checkProduce(count int, key, value string, hasKey bool, rf int) error {
	lim := l.limits
	if count > lim.recordsPerProduce {
		return fmt.Errorf("count=%d is past the limit of %s records per produce command: produce them in several commands", count, thousands(int64(lim.recordsPerProduce)))
	}
	bytes := expandedBytes(value, count)
	if hasKey {
		bytes += expandedBytes(key, count)
	}
	if bytes > lim.bytesPerProduce {
		return fmt.Errorf("count=%d records of this key and value are %s bytes, past the limit of %s bytes per produce command", count, thousands(bytes), thousands(lim.bytesPerProduce))
	}
	grow := (bytes + int64(count)*produceRecordOverhead) * int64(max(rf, 1))
	if held := l.bytesHeld(); held+grow > lim.bytesPerCluster {
		return fmt.Errorf("the cluster holds %s bytes of partition logs (every replica counted); these records would add up to %s more, past the limit of %s bytes per cluster: produce fewer or smaller records, let retention free room on a topic created with retention.bytes or retention.ms, or start a new cluster",
			thousands(held), thousands(grow), thousands(lim.bytesPerCluster))
	}
	return nil
}

// produceHeapBytes estimates the heap a produce of count records holding
// fields bytes of keys and values takes at its peak, beyond what was live
// before: per record, its message, delivery report, acknowledged record
// and share of the batches (about 800 bytes measured with short keys and
// values, the garbage collector's headroom included), and its bytes a few
// times over (the command's buffer, the producer's batch, each replica's
// log, fetches).
func produceHeapBytes(count int, fields int64) int64 {
	return int64(count)*768 + 4*fields
}

// expandedBytes is the length of s summed over count records once {i}
// is replaced by each record's index, without building the strings.
func expandedBytes(s string, count int) int64 {
	n := int64(len(s)) * int64(count)
	holes := int64(strings.Count(s, "{i}"))
	if holes == 0 {
		return n
	}
	// Each {i} (3 bytes) becomes the index's digits: indexes [lo, hi)
	// have the same number of them.
	for digits, lo, hi := int64(1), 0, 10; lo < count; digits, lo, hi = digits+1, hi, hi*10 {
		n += holes * (digits - 3) * int64(min(hi, count)-lo)
	}
	return n
}

// bytesHeld is the size of every partition log on every broker.
func (l *Lab) bytesHeld() int64 {
	var n int64
	for _, t := range l.cluster.Topics() {
		for i := range t.Partitions {
			for _, b := range l.cluster.Brokers() {
				if r := b.Replica(protocol.TopicPartition{Topic: t.Name, Partition: int32(i)}); r != nil {
					n += r.Log.Size()
				}
			}
		}
	}
	return n
}

// recordsFailed is a produce some of whose records got no offset: the
// command ran, and its outcome is Kafka's error, printed as the command's
// error so that `loglab script` exits 1. It is no mistake in the command
// line, so no usage line follows it.
type recordsFailed struct{ report string }

func (e *recordsFailed) Error() string { return e.report }

// Outcome marks the error as the command's result rather than a misuse.
func (e *recordsFailed) Outcome() {}

// produceEvery sends one message every interval of virtual time, as an
// application calling send() in a paced loop, then waits for every
// delivery report: records sent later carry later CreateTimes.
func produceEvery(c *cluster.Cluster, p *client.Producer, topic string, msgs []cluster.Message, interval time.Duration) ([]*client.Delivery, error) {
	var ds []*client.Delivery
	for i, m := range msgs {
		if i > 0 {
			if err := c.Tick(interval); err != nil {
				return ds, err
			}
		}
		ds = append(ds, c.Send(p, topic, []cluster.Message{m})...)
	}
	cfg := p.Config()
	_, err := c.RunUntil(func() bool {
		for _, d := range ds {
			if !d.Done {
				return false
			}
		}
		return true
	}, cfg.MaxBlock+cfg.DeliveryTimeout+cfg.RequestTimeout+time.Second)
	return ds, err
}

// compressionTypes are the producer's compression.type values, Kafka's
// codec names.
func compressionTypes() []string {
	var names []string
	for c := record.None; c.Known(); c++ {
		names = append(names, c.String())
	}
	return names
}

// producer returns the named producer, or the console producer.
func (l *Lab) producer(name string) (*client.Producer, error) {
	if name == "" {
		if p := l.cluster.Producer(consoleProducer); p != nil {
			return p, nil
		}
		// kafka-console-producer's defaults are the producer's: idempotent.
		cfg := client.DefaultProducerConfig()
		cfg.EnableIdempotence = true
		return l.cluster.CreateProducer(consoleProducer, cfg)
	}
	if p := l.cluster.Producer(name); p != nil {
		return p, nil
	}
	return nil, fmt.Errorf("no producer %q; create it with `producer create %s acks=all`", name, name)
}

// expandIndex replaces {i} with the record's index within the command.
func expandIndex(s string, i int) string {
	return strings.ReplaceAll(s, "{i}", strconv.Itoa(i))
}

// describeDeliveries summarises delivery reports: one line per partition
// and outcome, with offset ranges, in the order they were sent. It never
// calls a record sent without its partition, nor acknowledged without its
// offset, and reports whether any record failed or got no report at all.
func describeDeliveries(p *client.Producer, ds []*client.Delivery) (string, bool) {
	type group struct {
		partition int32
		err       protocol.ErrorCode
		message   string
		done      bool
		first     int64
		last      int64
		n         int
		attempts  int
	}
	var groups []*group
	failed := false
	for _, d := range ds {
		if d.Err != protocol.None || !d.Done || (d.Acks != 0 && d.Offset < 0) {
			failed = true
		}
		var g *group
		for _, x := range groups {
			if x.partition == d.Partition && x.err == d.Err && x.message == d.Message && x.done == d.Done &&
				(d.Err != protocol.None || !d.Done || d.Offset < 0 || d.Offset == x.last+1) {
				g = x
			}
		}
		if g == nil {
			g = &group{partition: d.Partition, err: d.Err, message: d.Message, done: d.Done, first: d.Offset}
			groups = append(groups, g)
		}
		g.last = d.Offset
		g.n++
		g.attempts = max(g.attempts, d.Attempts)
	}
	acks := map[int16]string{-1: "all", 0: "0", 1: "1"}[p.Config().Acks]
	var b strings.Builder
	for i, g := range groups {
		if i > 0 {
			b.WriteByte('\n')
		}
		topic := ds[0].Topic
		records := "1 record"
		if g.n > 1 {
			records = fmt.Sprintf("%d records", g.n)
		}
		retried := ""
		if g.attempts > 1 {
			retried = fmt.Sprintf(" after %d attempts", g.attempts)
		}
		where := fmt.Sprintf("%s/%d", topic, g.partition)
		if g.partition < 0 {
			where = topic // the partitioner never ran: no metadata for the topic
		}
		switch {
		case !g.done:
			fmt.Fprintf(&b, "%s to %s got no delivery report: still waiting when the command gave up", records, where)
		case g.err == protocol.MaxBlockTimeout:
			fmt.Fprintf(&b, "%s to %s failed: %s: %s (max.block.ms)", records, where, protocol.TimeoutExceptionClass, g.message)
		case g.err == protocol.DeliveryTimeout:
			// Java's exception, as the send callback gets it: the Kafka
			// error that kept the batch retrying is not in it.
			fmt.Fprintf(&b, "%s to %s failed%s: %s: %s (delivery.timeout.ms)", records, where, retried, protocol.TimeoutExceptionClass, g.message)
		case g.err != protocol.None && g.message != "":
			fmt.Fprintf(&b, "%s to %s failed%s: %s: %s", records, where, retried, g.err.Name(), g.message)
		case g.err != protocol.None:
			fmt.Fprintf(&b, "%s to %s failed%s: %s", records, where, retried, g.err.Name())
		case g.first < 0 && p.Config().Acks != 0:
			fmt.Fprintf(&b, "%s to %s: acknowledged without an offset", records, where)
		case g.first < 0:
			fmt.Fprintf(&b, "%s sent to %s/%d (acks=0: no acknowledgement, no offset)", records, topic, g.partition)
		case g.n == 1:
			fmt.Fprintf(&b, "produced to %s/%d at offset %d (acks=%s%s)", topic, g.partition, g.first, acks, retried)
		default:
			fmt.Fprintf(&b, "produced %s to %s/%d at offsets %d-%d (acks=%s%s)", records, topic, g.partition, g.first, g.last, acks, retried)
		}
	}
	return b.String(), failed
}
