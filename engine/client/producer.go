package client

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/record"
	"github.com/loglab/loglab/engine/sim"
)

// ProducerConfig is the producer settings loglab models, Kafka's names.
type ProducerConfig struct {
	Acks            int16              // acks: 0, 1, -1 (all; Kafka's default)
	Linger          time.Duration      // linger.ms (5 ms since Kafka 4.0)
	BatchSize       int                // batch.size (16384)
	Retries         int                // retries (2147483647)
	RetryBackoff    time.Duration      // retry.backoff.ms (100 ms)
	RetryBackoffMax time.Duration      // retry.backoff.max.ms (1 s, KIP-580)
	MaxBlock        time.Duration      // max.block.ms (60 s): how long send waits for metadata
	RequestTimeout  time.Duration      // request.timeout.ms (30 s)
	DeliveryTimeout time.Duration      // delivery.timeout.ms (120 s)
	MaxInFlight     int                // max.in.flight.requests.per.connection (5)
	Compression     record.Compression // compression.type (none)
	// EnableIdempotence is enable.idempotence (Kafka >= 3.0: true; see
	// ValidateIdempotence for when it is turned off). DefaultProducerConfig
	// leaves it false: the lab decides, so that its older sessions replay.
	EnableIdempotence  bool
	TransactionalID    string        // transactional.id ("": none)
	TransactionTimeout time.Duration // transaction.timeout.ms (60 s)
}

// DefaultProducerConfig is the Java producer's defaults, idempotence aside.
func DefaultProducerConfig() ProducerConfig {
	return ProducerConfig{Acks: -1, Linger: 5 * time.Millisecond, BatchSize: 16384, Retries: math.MaxInt32,
		RetryBackoff: DefaultRetryBackoff, RetryBackoffMax: DefaultRetryBackoffMax, MaxBlock: 60 * time.Second,
		RequestTimeout: 30 * time.Second, DeliveryTimeout: 120 * time.Second, MaxInFlight: 5,
		TransactionTimeout: 60 * time.Second}
}

// Delivery is the report for one record: where it landed, or the error.
type Delivery struct {
	Topic     string
	Partition int32 // -1 until the partitioner chose (it never did if metadata never came)
	Offset    int64 // -1 for acks=0 and failures
	Timestamp int64 // CreateTime: when send() got past waiting for metadata, in ms
	Key       []byte
	Value     []byte
	Err       protocol.ErrorCode
	// Message is the Java client's exception message when there is more
	// to say than the error's name (always for a TimeoutException).
	Message  string
	Done     bool
	Acks     int16
	Attempts int
	record   pendingRecord
	sentAt   time.Duration // when Send was called: max.block.ms counts from here
	// sentInTxn: Send was called while a transaction was in progress.
	sentInTxn bool
}

// pendingRecord is what send() was asked that the report does not keep:
// the topic, key and value are the Delivery's own.
type pendingRecord struct {
	partition int32 // -1: the partitioner chooses
}

// producerBatch is an accumulating or in-flight batch for one partition.
type producerBatch struct {
	tp       protocol.TopicPartition
	records  []*Delivery
	bytes    int    // estimated size: batch header plus each record (Kafka's estimatedSizeInBytes)
	closed   bool   // a record did not fit: no more appends (closeForRecordAppends)
	raw      []byte // the encoded batch, kept so a retry resends the same bytes
	created  time.Duration
	attempts int
	corr     int64
	inFlight bool
	sentTo   int32
	sentAt   time.Duration // when the last attempt's request went out (request-latency-avg)
	timeout  *sim.Event
	retryAt  time.Duration
	lastErr  protocol.ErrorCode
	// expired: delivery.timeout.ms failed the batch while its request was
	// in flight. The request stays in flight, as in Kafka's NetworkClient:
	// it still counts against max.in.flight and its request timeout still
	// closes the connection; its answer, if any, is ignored.
	expired bool
	// leaderEpoch and attemptsWhenLeaderChanged are ProducerBatch's
	// currentLeaderEpoch and attemptsWhenLeaderLastChanged (KIP-951): a
	// retry that metadata sends to a newer leader skips its backoff.
	leaderEpoch               int32
	attemptsWhenLeaderChanged int
	// The idempotent producer's header fields, set when the batch is first
	// drained (RecordAccumulator.drainBatchesForOneNode) and kept on retry;
	// baseSequence -1 until then. sequenceReset: an epoch bump or a failed
	// batch before it renumbered it (ProducerBatch.sequenceHasBeenReset).
	producerID    int64
	producerEpoch int16
	baseSequence  int32
	transactional bool
	sequenceReset bool
	// retried is ProducerBatch.inRetry: it was put back in the queue once.
	retried bool
}

func newProducerBatch(tp protocol.TopicPartition, created time.Duration) *producerBatch {
	return &producerBatch{tp: tp, created: created, sentTo: -1, leaderEpoch: -1,
		producerID: protocol.NoProducerID, producerEpoch: protocol.NoProducerEpoch, baseSequence: -1}
}

func (b *producerBatch) hasSequence() bool { return b.baseSequence >= 0 }

// lastSequence is ProducerBatch.lastSequence (wrapping like the broker's).
func (b *producerBatch) lastSequence() int32 {
	return incrementSequence(b.baseSequence, len(b.records)-1)
}

// setProducerState is ProducerBatch.setProducerState, at the first drain.
func (b *producerBatch) setProducerState(pe producerIDAndEpoch, seq int32, transactional bool) {
	b.producerID, b.producerEpoch, b.baseSequence, b.transactional = pe.id, pe.epoch, seq, transactional
}

// resetProducerState is ProducerBatch.resetProducerState: the header gets
// a new id, epoch or sequence, so the batch is encoded again (Kafka
// reopens its MemoryRecordsBuilder to rewrite the header; the records and
// their CreateTime stay).
func (b *producerBatch) resetProducerState(pe producerIDAndEpoch, seq int32) {
	b.producerID, b.producerEpoch, b.baseSequence = pe.id, pe.epoch, seq
	b.sequenceReset = true
	b.raw = nil
}

// maybeUpdateLeaderEpoch is ProducerBatch.maybeUpdateLeaderEpoch: remember
// a newer leader epoch and at which attempt it was learnt.
func (b *producerBatch) maybeUpdateLeaderEpoch(epoch int32) {
	if epoch >= 0 && epoch > b.leaderEpoch {
		b.leaderEpoch = epoch
		b.attemptsWhenLeaderChanged = b.attempts
	}
}

// leaderChangedForRetry is ProducerBatch.hasLeaderChangedForTheOngoingRetry:
// this batch waits to be retried and the leader changed since it failed.
func (b *producerBatch) leaderChangedForRetry() bool {
	return b.attempts >= 1 && b.attempts == b.attemptsWhenLeaderChanged
}

// Producer is a Kafka producer on the network: partitioner, accumulator
// (batch.size, linger.ms), sender (acks, max.in.flight, retries with
// backoff, request and delivery timeouts). Without idempotence a retried
// batch can land after a later one, or twice: that is the lesson.
type Producer struct {
	ID     sim.NodeID
	cfg    ProducerConfig
	net    *sim.Network
	sched  *sim.Scheduler
	rng    *rand.Rand
	meta   *metadataCache
	sticky *StickyPartitioner
	events func(string)
	stats  ProducerMetrics // producer-metrics (metrics.go)

	// completions counts complete calls (Completions).
	completions int

	waiting  []*Delivery      // records waiting for metadata
	blockEv  *sim.Event       // the next max.block.ms expiry among them
	queues   []*producerBatch // accumulating or waiting to be (re)sent, in order
	inFlight []*producerBatch // sent, awaiting a response
	corr     int64
	drainEv  *sim.Event // the next drain; one at a time
	// encodeScratch is encode's slice of records, reused batch after batch.
	encodeScratch []record.Record

	// tm is the TransactionManager of an idempotent or transactional
	// producer (nil with enable.idempotence=false, as in Kafka).
	tm         *transactionManager
	txnTimeout *sim.Event // request.timeout.ms of the transactional request in flight
	crashed    bool

	// refused counts the transactional requests whose coordinator refused
	// the connection (its process is down), each followed at once by a
	// FindCoordinator (Kafka's Sender.maybeFindCoordinatorAndRetry, which
	// sleeps only for requests that need no coordinator); refusedBy is the
	// broker that refused last. The liveness checker reads them
	// (CoordinatorRefusals).
	refused   uint64
	refusedBy int32
}

// NewProducer attaches a producer to the network.
func NewProducer(id sim.NodeID, cfg ProducerConfig, bootstrap []int32, net *sim.Network, sched *sim.Scheduler, rng *rand.Rand, events func(string)) *Producer {
	p := &Producer{ID: id, cfg: cfg, net: net, sched: sched, rng: rng, sticky: NewStickyPartitioner(), events: events}
	p.sticky.BatchSize = cfg.BatchSize
	p.meta = newMetadataCache(id, net, sched, rng, bootstrap, p.backoff(), p.onMetadata)
	net.Attach(id, p.handle)
	if cfg.EnableIdempotence {
		p.tm = newTransactionManager(cfg.TransactionalID, int32(cfg.TransactionTimeout.Milliseconds()), func(s string) { events(string(id) + ": " + s) })
		if cfg.TransactionalID == "" {
			// The sender thread starts with the producer: an idempotent
			// producer asks for its id before the first send.
			p.scheduleDrain(0)
		}
	}
	return p
}

// Config is the producer's configuration.
func (p *Producer) Config() ProducerConfig { return p.cfg }

func (p *Producer) backoff() exponentialBackoff {
	return exponentialBackoff{initial: p.cfg.RetryBackoff, max: max(p.cfg.RetryBackoffMax, p.cfg.RetryBackoff)}
}

// MetadataRequests counts the metadata requests this producer sent.
func (p *Producer) MetadataRequests() int { return p.meta.requests }

// Send queues a record; its Delivery is filled in when it completes.
// partition < 0 lets the partitioner choose.
//
// Like KafkaProducer.send, a record for a topic missing from the
// producer's metadata waits for it (waitOnMetadata), asking again with
// backoff, and fails with a TimeoutException after max.block.ms. Java's
// send() blocks its caller meanwhile, so a loop of sends waits max.block.ms
// for each record in turn; loglab's Send returns at once and every record
// waits max.block.ms from its own Send.
func (p *Producer) Send(topic string, partition int32, key, value []byte) *Delivery {
	d := &Delivery{Topic: topic, Partition: -1, Offset: -1, Key: key, Value: value, Acks: p.cfg.Acks,
		record: pendingRecord{partition: partition}, sentAt: p.sched.Clock.Elapsed()}
	d.sentInTxn = p.tm != nil && p.tm.state == TxnInTransaction
	p.waiting = append(p.waiting, d)
	if n := p.meta.partitions(topic); n == 0 || int(partition) >= n {
		p.meta.requestUpdate(true)
		p.scheduleBlockExpiry()
		return d
	}
	p.onMetadata()
	return d
}

// scheduleBlockExpiry wakes up when the oldest record waiting for metadata
// has waited max.block.ms.
func (p *Producer) scheduleBlockExpiry() {
	if p.blockEv != nil || len(p.waiting) == 0 {
		return
	}
	wait := p.waiting[0].sentAt + p.cfg.MaxBlock - p.sched.Clock.Elapsed()
	p.blockEv = p.sched.After(max(wait, 0), "max-block "+string(p.ID), func() {
		p.blockEv = nil
		p.expireWaiting()
		p.scheduleBlockExpiry()
	})
}

// expireWaiting fails the records that waited max.block.ms for metadata,
// with the TimeoutException KafkaProducer.waitOnMetadata throws.
func (p *Producer) expireWaiting() {
	now := p.sched.Clock.Elapsed()
	var still []*Delivery
	for _, d := range p.waiting {
		if now-d.sentAt < p.cfg.MaxBlock {
			still = append(still, d)
			continue
		}
		d.Message = fmt.Sprintf("Topic %s not present in metadata after %d ms.", d.Topic, p.cfg.MaxBlock.Milliseconds())
		if n := p.meta.partitions(d.Topic); n > 0 {
			d.Message = fmt.Sprintf("Partition %d of topic %s with partition count %d is not present in metadata after %d ms.", d.record.partition, d.Topic, n, p.cfg.MaxBlock.Milliseconds())
		}
		p.complete(d, -1, protocol.MaxBlockTimeout, d.Message)
	}
	if len(still) < len(p.waiting) {
		p.events(fmt.Sprintf("%s: %d record(s) for %s waited max.block.ms=%d for metadata: TimeoutException", p.ID, len(p.waiting)-len(still), p.waiting[0].Topic, p.cfg.MaxBlock.Milliseconds()))
	}
	p.waiting = still
}

// Busy reports whether records are still waiting, batched or in flight.
func (p *Producer) Busy() bool {
	return len(p.waiting)+len(p.queues) > 0 || slices.ContainsFunc(p.inFlight, func(b *producerBatch) bool { return !b.expired })
}

func (p *Producer) onMetadata() {
	var still []*Delivery
	now := p.sched.Clock.NowMs()
	for _, d := range p.waiting {
		n := p.meta.partitions(d.Topic)
		if n == 0 || int(d.record.partition) >= n {
			// waitOnMetadata waits for the topic, and for a partition
			// number the metadata does not know yet.
			still = append(still, d)
			continue
		}
		// Kafka stamps CreateTime once send() got its metadata.
		d.Timestamp = now
		switch {
		case d.record.partition >= 0:
			d.Partition = d.record.partition
			if p.addToTransaction(d) {
				p.accumulate(d)
			}
		case d.Key != nil:
			d.Partition = int32(KeyPartition(d.Key, n))
			if p.addToTransaction(d) {
				p.accumulate(d)
			}
		default:
			avail := p.meta.available(d.Topic)
			d.Partition = int32(p.sticky.Partition(d.Topic, avail, n, p.rng))
			if p.addToTransaction(d) {
				appended, full := p.accumulate(d)
				p.sticky.Appended(d.Topic, appended, full, avail, n, p.rng)
			}
		}
	}
	p.waiting = still
	if len(still) > 0 {
		// waitOnMetadata asks again until the topic shows up; the
		// metadata backoff paces it.
		p.meta.askElsewhere()
		p.meta.refresh()
	}
	p.scheduleDrain(0)
}

// accumulate adds a record to its partition's last batch if it has room
// for the whole record by batch.size (Kafka's MemoryRecordsBuilder.hasRoomFor,
// counting uncompressed bytes: difference from Kafka, which estimates a
// compressed batch's size by a learnt compression ratio times 1.05),
// or opens a new batch, which takes any first record however large. It
// returns the bytes the record added (a new batch counts its header too,
// as Kafka's RecordAppendResult.appendedBytes does) and whether the
// partition's last batch is now full (RecordAccumulator.allBatchesFull).
func (p *Producer) accumulate(d *Delivery) (int, bool) {
	tp := protocol.TopicPartition{Topic: d.Topic, Partition: d.Partition}
	for i := len(p.queues) - 1; i >= 0; i-- {
		b := p.queues[i]
		if b.tp != tp {
			continue
		}
		if b.attempts == 0 && !b.closed {
			size := recordSize(len(b.records), d.Timestamp-b.records[0].Timestamp, d)
			if b.bytes+size <= p.cfg.BatchSize {
				b.records = append(b.records, d)
				b.bytes += size
				return size, p.full(b)
			}
			b.closed = true
		}
		break
	}
	size := record.HeaderSize + recordSize(0, 0, d)
	b := newProducerBatch(tp, p.sched.Clock.Elapsed())
	b.records, b.bytes = []*Delivery{d}, size
	p.queues = append(p.queues, b)
	p.scheduleDrain(p.cfg.Linger)
	return size, p.full(b)
}

// recordSize is a record's size in its batch, Kafka's DefaultRecord.sizeInBytes.
func recordSize(offsetDelta int, timestampDelta int64, d *Delivery) int {
	r := record.Record{OffsetDelta: int32(offsetDelta), TimestampDelta: timestampDelta, Key: d.Key, Value: d.Value}
	return r.SizeInBytes()
}

// full is ProducerBatch.isFull: closed to appends, or batch.size reached.
func (p *Producer) full(b *producerBatch) bool {
	return b.closed || b.bytes >= p.cfg.BatchSize
}

// scheduleDrain makes sure a drain runs within d. One drain is pending at
// a time, the earliest asked for: every caller asking for its own timer
// made them multiply while a partition had no leader (an event storm the
// VOPR found).
func (p *Producer) scheduleDrain(d time.Duration) {
	at := p.sched.Clock.Elapsed() + max(d, 0)
	if p.drainEv != nil && !p.drainEv.Cancelled && p.drainEv.At <= at {
		return
	}
	if p.drainEv != nil {
		p.drainEv.Cancelled = true
	}
	var ev *sim.Event
	ev = p.sched.After(d, "drain "+string(p.ID), func() {
		if p.drainEv == ev {
			p.drainEv = nil
		}
		p.drain()
	})
	p.drainEv = ev
}

// ready says whether a batch may be sent now: full (or another batch for
// its partition waits behind it), lingered long enough, or a retry whose
// backoff passed or whose partition has a new leader since it failed
// (RecordAccumulator.ready and shouldBackoff; KIP-951, Kafka 3.7: the new
// leader has not failed this batch, so there is nothing to back off from).
func (p *Producer) ready(b *producerBatch, now time.Duration) bool {
	if b.attempts > 0 {
		return now >= b.retryAt || b.leaderChangedForRetry()
	}
	// A transaction being committed or aborted sends what it has at once
	// (RecordAccumulator.ready's transactionCompleting).
	if p.full(b) || now-b.created >= p.cfg.Linger || (p.tm != nil && p.tm.isCompleting()) {
		return true
	}
	behind := 0
	for _, x := range p.queues {
		if x.tp == b.tp {
			behind++
		}
	}
	return behind > 1
}

// drain sends ready batches whose leader is known and whose connection has
// room (max.in.flight.requests.per.connection). Like Kafka's accumulator it
// only ever looks at the head of each partition's queue: a retried batch
// waiting out its backoff holds back the batches behind it, so with one
// request in flight per connection the order holds.
func (p *Producer) drain() {
	if p.crashed {
		return
	}
	if p.tm != nil && p.runTransactionManager() {
		return
	}
	now := p.sched.Clock.Elapsed()
	needMeta := false
	for sent := true; sent; {
		sent = false
		var heads []protocol.TopicPartition
		for _, b := range slices.Clone(p.queues) {
			if slices.Contains(heads, b.tp) {
				continue // not the head of its partition's queue
			}
			heads = append(heads, b.tp)
			if p.deliveryTimedOut(b, now) {
				p.expire(b)
				sent = true
				continue
			}
			_, epoch := p.meta.leader(b.tp)
			b.maybeUpdateLeaderEpoch(epoch)
			if !p.ready(b, now) {
				continue
			}
			leader, _ := p.meta.leader(b.tp)
			if leader < 0 {
				needMeta = true
				continue
			}
			if p.inFlightTo(leader) >= p.cfg.MaxInFlight {
				continue
			}
			if p.tm != nil && p.shouldStopDrainBatchesForPartition(b) {
				continue
			}
			p.assignSequence(b)
			p.sendBatch(b, leader)
			sent = true
		}
	}
	if needMeta {
		p.meta.refresh()
		// At least a millisecond: with retry.backoff.ms=0 a drain waiting
		// for a leader would otherwise run again at the same instant forever.
		p.scheduleDrain(max(p.cfg.RetryBackoff, time.Millisecond))
	}
	// Sender.getExpiredInflightBatches: delivery.timeout.ms bounds a batch
	// in flight too, however long its request timeout still runs.
	for _, b := range slices.Clone(p.inFlight) {
		if !b.expired && p.deliveryTimedOut(b, now) {
			p.expire(b)
		}
	}
	// Wake up for the next batch to become ready or to expire, so that
	// records waiting for a leader or an answer still fail after
	// delivery.timeout.ms.
	for _, b := range p.queues {
		at := min(b.created+p.cfg.Linger, b.created+p.cfg.DeliveryTimeout)
		if b.attempts > 0 {
			at = min(b.retryAt, b.created+p.cfg.DeliveryTimeout)
		}
		if at > now {
			p.scheduleDrain(at - now)
		}
	}
	for _, b := range p.inFlight {
		if at := b.created + p.cfg.DeliveryTimeout; !b.expired && at > now {
			p.scheduleDrain(at - now)
		}
	}
}

// deliveryTimedOut is ProducerBatch.hasReachedDeliveryTimeout.
func (p *Producer) deliveryTimedOut(b *producerBatch, now time.Duration) bool {
	return now-b.created >= p.cfg.DeliveryTimeout
}

func (p *Producer) inFlightTo(broker int32) int {
	n := 0
	for _, b := range p.inFlight {
		if b.sentTo == broker {
			n++
		}
	}
	return n
}

func (p *Producer) sendBatch(b *producerBatch, leader int32) {
	p.queues = slices.DeleteFunc(p.queues, func(x *producerBatch) bool { return x == b })
	p.corr++
	b.corr, b.sentTo, b.inFlight = p.corr, leader, true
	b.sentAt = p.sched.Clock.Elapsed()
	b.attempts++
	for _, d := range b.records {
		d.Attempts = b.attempts
	}
	if b.raw == nil {
		// Encoded once: a retry resends these very bytes (Kafka's
		// ProducerBatch keeps its MemoryRecords), CreateTime included;
		// only an epoch bump or renumbering rewrites the header.
		raw, err := p.encode(b)
		if err != nil {
			p.failBatch(b, protocol.CorruptMessage, "", false)
			return
		}
		b.raw = raw
	}
	req := protocol.ProduceRequest{CorrelationID: b.corr, Acks: p.cfg.Acks,
		TimeoutMs: int32(p.cfg.RequestTimeout.Milliseconds()), TP: b.tp, Records: b.raw}
	if p.tm != nil {
		req.TransactionalID = p.tm.txnID
	}
	p.net.Send(p.ID, kraft.BrokerNode(leader), req)
	if p.cfg.Acks == 0 {
		// Fire and forget: success is assumed the moment it is sent.
		b.inFlight = false
		for _, d := range b.records {
			p.complete(d, -1, protocol.None, "")
		}
		return
	}
	p.inFlight = append(p.inFlight, b)
	corr := b.corr
	b.timeout = p.sched.After(p.cfg.RequestTimeout, "request-timeout "+string(p.ID), func() {
		if b.inFlight && b.corr == corr && !p.crashed {
			p.requestTimedOut(leader)
		}
	})
}

// requestTimedOut is NetworkClient.handleTimedOutRequests: a request to
// the broker got no answer in request.timeout.ms, so the client closes the
// connection and cancelInFlightRequests fails every request in flight to
// that broker, and Sender.handleProduceResponse fails their batches with
// REQUEST_TIMED_OUT, not each at its own timeout. Each batch may or may not
// have been written: retrying is what duplicates it.
func (p *Producer) requestTimedOut(broker int32) {
	node := kraft.BrokerNode(broker)
	p.events(fmt.Sprintf("%s: no answer from broker %d within request.timeout.ms=%d: disconnecting, failing every request in flight to it", p.ID, broker, p.cfg.RequestTimeout.Milliseconds()))
	p.meta.disconnected(node)
	msg := fmt.Sprintf("Disconnected from node %d due to timeout", broker)
	for _, b := range slices.Clone(p.inFlight) {
		if b.sentTo == broker {
			p.onResult(b, protocol.RequestTimedOut, -1, -1, msg)
		}
	}
	if p.tm != nil && p.tm.inFlight != nil && p.tm.inFlight.sentTo == broker {
		p.txnDisconnected()
	}
}

// encode writes the batch as a RecordBatch v2 (Kafka's
// MemoryRecordsBuilder). The records are laid out in a slice the producer
// keeps for the next batch, and the bytes are written into a buffer of the
// batch's size (b.bytes, exact without compression): a new slice of
// records per batch and the buffer grown by doubling from nothing were
// most of what a large produce allocated on the producer's side.
func (p *Producer) encode(b *producerBatch) ([]byte, error) {
	base := b.records[0].Timestamp
	rb := record.Batch{
		Attributes:      record.ComputeAttributes(p.cfg.Compression, record.CreateTime, b.transactional, false),
		LastOffsetDelta: int32(len(b.records) - 1), BaseTimestamp: base, MaxTimestamp: base,
		ProducerID: b.producerID, ProducerEpoch: b.producerEpoch, BaseSequence: b.baseSequence,
		Records: p.encodeScratch[:0],
	}
	for i, d := range b.records {
		rb.MaxTimestamp = max(rb.MaxTimestamp, d.Timestamp)
		rb.Records = append(rb.Records, record.Record{OffsetDelta: int32(i), TimestampDelta: d.Timestamp - base, Key: d.Key, Value: d.Value})
	}
	var dst []byte
	if p.cfg.Compression == record.None {
		dst = make([]byte, 0, b.bytes)
	}
	raw, err := rb.AppendEncoded(dst)
	clear(rb.Records) // the records' keys and values belong to the batch, not to the scratch slice
	p.encodeScratch = rb.Records[:0]
	return raw, err
}

func (p *Producer) handle(env *sim.Envelope) {
	if p.crashed {
		return
	}
	switch m := env.Msg.(type) {
	case protocol.MetadataResponse:
		p.meta.handle(m)
	case protocol.ProduceResponse:
		for _, b := range p.inFlight {
			if b.corr == m.CorrelationID {
				p.answered(b)
				p.onResult(b, m.Error, m.BaseOffset, m.LogStartOffset, "")
				return
			}
		}
	case sim.Disconnected:
		// The broker died: what was in flight to it failed with a network
		// error (it may or may not have been written) and is retried.
		p.meta.disconnected(m.Peer)
		for _, b := range slices.Clone(p.inFlight) {
			if kraft.BrokerNode(b.sentTo) == m.Peer {
				p.onResult(b, protocol.NetworkException, -1, -1, fmt.Sprintf("Disconnected from node %d", b.sentTo))
			}
		}
		if p.tm != nil && p.tm.inFlight != nil && kraft.BrokerNode(p.tm.inFlight.sentTo) == m.Peer {
			p.txnDisconnected()
		}
	default:
		p.handleTxnResponse(env.Msg)
	}
}

// onResult completes or retries a batch (Sender.completeBatch); msg is
// the Java exception's message should the batch fail.
func (p *Producer) onResult(b *producerBatch, code protocol.ErrorCode, base, logStartOffset int64, msg string) {
	b.inFlight = false
	if b.timeout != nil {
		b.timeout.Cancelled = true
	}
	p.inFlight = slices.DeleteFunc(p.inFlight, func(x *producerBatch) bool { return x == b })
	if b.expired {
		// Already failed by delivery.timeout.ms: ProducerBatch.done
		// ignores a second final state, even a success. The transaction
		// manager still learns the sequence was acknowledged.
		if code == protocol.None && p.tm != nil {
			p.tm.handleCompletedBatch(b, base)
		}
		p.scheduleDrain(0)
		return
	}
	now := p.sched.Clock.Elapsed()
	switch {
	case code == protocol.None:
		if p.tm != nil {
			p.tm.handleCompletedBatch(b, base)
		}
		for i, d := range b.records {
			p.complete(d, base+int64(i), protocol.None, "")
		}
	case code == protocol.MessageTooLarge && len(b.records) > 1:
		if b.lastErr != code {
			p.events(fmt.Sprintf("%s: produce to %s/%d failed with MESSAGE_TOO_LARGE: splitting the batch of %d records by batch.size=%d and resending", p.ID, b.tp.Topic, b.tp.Partition, len(b.records), p.cfg.BatchSize))
		}
		// Sender.completeBatch splits a rejected multi-record batch by
		// batch.size and puts the pieces back at the head of the queue,
		// without counting an attempt. A batch that is already within
		// batch.size splits into itself and is resent until
		// delivery.timeout.ms: keep batch.size below max.message.bytes.
		pieces := p.split(b)
		if p.tm != nil {
			p.tm.removeInFlightBatch(b)
			for i := len(pieces) - 1; i >= 0; i-- {
				p.tm.addInFlightBatch(pieces[i])
				p.insertInSequenceOrder(pieces[i])
			}
		} else {
			p.queues = append(pieces, p.queues...)
		}
	case p.canRetry(b, code, logStartOffset, now):
		if code != b.lastErr {
			// Say it once per kind of failure, not at every retry.
			p.events(fmt.Sprintf("%s: produce to %s/%d failed with %s: retrying after %v, doubling up to %v", p.ID, b.tp.Topic, b.tp.Partition, code.Name(), p.cfg.RetryBackoff, p.backoff().max))
		}
		b.lastErr = code
		b.retried = true
		// KIP-580: the wait doubles with each attempt (RecordAccumulator's
		// retryBackoff.backoff(attempts - 1)).
		wait := p.backoff().backoff(b.attempts-1, p.rng)
		b.retryAt = now + wait
		if p.tm != nil {
			// RecordAccumulator.insertInSequenceOrder: retries go out in
			// sequence order, whatever order their answers came back in.
			p.insertInSequenceOrder(b)
		} else {
			// Kafka puts a retried batch back at the head of its
			// partition's queue; with more than one request in flight, a
			// later batch may already have been written, and order is lost.
			p.queues = append([]*producerBatch{b}, p.queues...)
		}
		// KAFKA_STORAGE_ERROR too: the leader's log directory failed and
		// the controller is moving the leadership (an InvalidMetadataException).
		if code == protocol.NotLeaderOrFollower || code == protocol.RequestTimedOut || code == protocol.NetworkException || code == protocol.FencedLeaderEpoch || code == protocol.UnknownLeaderEpoch || code == protocol.KafkaStorageError {
			p.meta.refresh()
		}
		p.scheduleDrain(wait)
	case code == protocol.DuplicateSequenceNumber && p.tm != nil:
		// The broker no longer remembers this batch's offset, only that
		// its sequence is older than what it has: success, offset unknown.
		p.tm.handleCompletedBatch(b, -1)
		for _, d := range b.records {
			p.complete(d, -1, protocol.None, "")
		}
	default:
		// Sequences are only reused if the batch still had retries left:
		// otherwise it may be in the log.
		p.failBatch(b, code, msg, b.attempts <= p.cfg.Retries)
	}
	p.scheduleDrain(0)
}

// canRetry is Sender.canRetry: time and attempts left, and the error
// retriable (for an idempotent producer, as TransactionManager.canRetry
// decides, which also retries OUT_OF_ORDER_SEQUENCE_NUMBER).
func (p *Producer) canRetry(b *producerBatch, code protocol.ErrorCode, logStartOffset int64, now time.Duration) bool {
	if p.deliveryTimedOut(b, now) || b.attempts > p.cfg.Retries {
		return false
	}
	if p.tm == nil {
		return code.Retriable()
	}
	return p.tm.canRetry(code, logStartOffset, b)
}

// insertInSequenceOrder puts a batch with a sequence back in its
// partition's queue before any batch with a higher sequence or none.
func (p *Producer) insertInSequenceOrder(b *producerBatch) {
	at := -1
	for i, x := range p.queues {
		if x.tp != b.tp {
			continue
		}
		if at < 0 {
			at = i // the partition's head
		}
		if x.hasSequence() && x.baseSequence < b.baseSequence {
			at = i + 1
			continue
		}
		break
	}
	if at < 0 {
		at = 0
	}
	p.queues = slices.Insert(p.queues, at, b)
}

// split is ProducerBatch.split: the records again, in order, in batches
// holding what fits in batch.size, each keeping the original creation time
// (so delivery.timeout.ms still counts from it) and every record its
// CreateTime.
func (p *Producer) split(b *producerBatch) []*producerBatch {
	var out []*producerBatch
	var cur *producerBatch
	for _, d := range b.records {
		if cur != nil {
			size := recordSize(len(cur.records), d.Timestamp-cur.records[0].Timestamp, d)
			if cur.bytes+size <= p.cfg.BatchSize {
				cur.records = append(cur.records, d)
				cur.bytes += size
				continue
			}
		}
		cur = newProducerBatch(b.tp, b.created)
		cur.records, cur.bytes, cur.closed = []*Delivery{d}, record.HeaderSize+recordSize(0, 0, d), true
		out = append(out, cur)
	}
	seq := b.baseSequence
	for _, x := range out {
		x.lastErr = protocol.MessageTooLarge
		if b.hasSequence() {
			// The pieces share the rejected batch's sequences.
			x.setProducerState(producerIDAndEpoch{b.producerID, b.producerEpoch}, seq, b.transactional)
			seq = incrementSequence(seq, len(x.records))
		}
	}
	return out
}

// expire fails a batch that reached delivery.timeout.ms, waiting in the
// accumulator or in flight, with the TimeoutException and message of
// Sender.sendProducerData. A batch in flight stays there (expired) until
// its request ends.
func (p *Producer) expire(b *producerBatch) {
	p.queues = slices.DeleteFunc(p.queues, func(x *producerBatch) bool { return x == b })
	where := "waiting in the accumulator"
	if b.inFlight {
		b.expired = true
		where = fmt.Sprintf("in flight to broker %d", b.sentTo)
	}
	age := p.sched.Clock.Elapsed() - b.created
	p.events(fmt.Sprintf("%s: delivery.timeout.ms=%d reached for %d record(s) of %s/%d %s: failing them", p.ID, p.cfg.DeliveryTimeout.Milliseconds(), len(b.records), b.tp.Topic, b.tp.Partition, where))
	// Java prints a TopicPartition as topic-partition.
	p.failBatch(b, protocol.DeliveryTimeout, fmt.Sprintf("Expiring %d record(s) for %s-%d:%d ms has passed since batch creation", len(b.records), b.tp.Topic, b.tp.Partition, age.Milliseconds()), false)
	if p.tm != nil && b.retried {
		// Sent, failed, and now out of time: it may be in the log. No new
		// batch goes to the partition until what is in flight tells.
		p.tm.markSequenceUnresolved(b)
	}
}

// failBatch is Sender.failBatch: the records fail, and the transaction
// manager hears of it (adjust: the batch's sequences may be reused).
func (p *Producer) failBatch(b *producerBatch, code protocol.ErrorCode, msg string, adjust bool) {
	for _, d := range b.records {
		p.complete(d, -1, code, msg)
	}
	if p.tm != nil {
		if msg == "" {
			msg = errorMessage(code)
		}
		p.tm.handleFailedBatch(b, &txnError{code, msg}, adjust)
	}
}

func (p *Producer) complete(d *Delivery, offset int64, code protocol.ErrorCode, msg string) {
	d.Offset, d.Err, d.Done, d.Message = offset, code, true, msg
	p.completions++
}

// Completions counts the deliveries this producer has completed, so that a
// driver holding many pending deliveries looks through them only after one
// completed, not after every event.
func (p *Producer) Completions() int { return p.completions }

// Describe lists the settings as name=value.
func (c ProducerConfig) Describe() string {
	acks := fmt.Sprint(c.Acks)
	if c.Acks == -1 {
		acks = "all"
	}
	idem := fmt.Sprintf("enable.idempotence=%t", c.EnableIdempotence)
	if c.TransactionalID != "" {
		idem += fmt.Sprintf(" transactional.id=%s transaction.timeout.ms=%d", c.TransactionalID, c.TransactionTimeout.Milliseconds())
	}
	return strings.Join([]string{"acks=" + acks, idem, fmt.Sprintf("linger.ms=%d", c.Linger.Milliseconds()), fmt.Sprintf("batch.size=%d", c.BatchSize),
		fmt.Sprintf("max.in.flight.requests.per.connection=%d", c.MaxInFlight), fmt.Sprintf("retries=%d", c.Retries),
		fmt.Sprintf("retry.backoff.ms=%d", c.RetryBackoff.Milliseconds()), fmt.Sprintf("retry.backoff.max.ms=%d", c.RetryBackoffMax.Milliseconds()),
		fmt.Sprintf("max.block.ms=%d", c.MaxBlock.Milliseconds()),
		fmt.Sprintf("request.timeout.ms=%d", c.RequestTimeout.Milliseconds()), fmt.Sprintf("delivery.timeout.ms=%d", c.DeliveryTimeout.Milliseconds()),
		"compression.type=" + c.Compression.String()}, " ")
}
