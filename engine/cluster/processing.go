package cluster

import (
	"fmt"
	"time"

	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/protocol"
)

// The application behind each lab consumer. Kafka delivers records to an
// application; whether each is processed once, twice or never depends on
// when the application commits relative to processing, and on crashes in
// between. Kafka keeps no such record: the lab does, so that a duplicate
// or a gap is shown rather than argued.
//
// Records a poll returns are "in hand". The application processes them
// either explicitly (`process`, taking virtual time during which the
// consumer does not poll) or, as a poll loop does, at once when it next
// polls or closes. A crash drops what is in hand unprocessed.

// processedKey names one record within a scope: the consumer's group, or
// the consumer itself when it has none (a duplicate across two
// independent consumers is pub/sub, not a duplicate).
type processedKey struct {
	scope string
	tp    protocol.TopicPartition
	off   int64
}

// Processed is one record processing, as the lab reports it.
type Processed struct {
	Consumer string
	TP       protocol.TopicPartition
	Offset   int64
	// Times is how often the scope has processed this record, this one
	// included: above 1, the record was processed again.
	Times int
	// First is the consumer that processed it first.
	First string
}

type ledger struct {
	inHand map[string][]client.ConsumedRecord // by consumer name
	counts map[processedKey]int
	first  map[processedKey]string
	// twice lists the re-processings in the order they happened.
	twice []Processed
	// dropped counts records a crash took out of a consumer's hands.
	dropped map[string]int
	// lastDone is what the last poll processed before polling.
	lastDone []Processed
	// busyUntil is when each application's current processing ends.
	busyUntil map[string]time.Duration
}

func (l *ledger) init() {
	if l.inHand == nil {
		l.inHand = map[string][]client.ConsumedRecord{}
		l.counts = map[processedKey]int{}
		l.first = map[processedKey]string{}
		l.dropped = map[string]int{}
		l.busyUntil = map[string]time.Duration{}
	}
}

// process marks records processed by consumer name within scope, in
// order, and returns each processing.
func (l *ledger) process(scope, name string, recs []client.ConsumedRecord) []Processed {
	l.init()
	out := make([]Processed, 0, len(recs))
	for _, r := range recs {
		k := processedKey{scope: scope, tp: r.TP, off: r.Offset}
		l.counts[k]++
		if l.first[k] == "" {
			l.first[k] = name
		}
		p := Processed{Consumer: name, TP: r.TP, Offset: r.Offset, Times: l.counts[k], First: l.first[k]}
		if p.Times > 1 {
			l.twice = append(l.twice, p)
		}
		out = append(out, p)
	}
	return out
}

// deliver hands recs to the application: what it held is processed first,
// as a poll loop processes a batch before it polls again.
func (l *ledger) deliver(scope, name string, recs []client.ConsumedRecord) []Processed {
	l.init()
	done := l.process(scope, name, l.inHand[name])
	l.inHand[name] = recs
	return done
}

// InHand lists the records consumer name polled and has not processed.
func (c *Cluster) InHand(name string) []client.ConsumedRecord {
	c.ledger.init()
	return c.ledger.inHand[name]
}

// Reprocessed lists every record processed again within its scope, in the
// order it happened.
func (c *Cluster) Reprocessed() []Processed { return c.ledger.twice }

// TimesProcessed is how often scope processed the record at tp/offset.
func (c *Cluster) TimesProcessed(scope string, tp protocol.TopicPartition, offset int64) int {
	c.ledger.init()
	return c.ledger.counts[processedKey{scope: scope, tp: tp, off: offset}]
}

// NeverProcessed counts the records a crash took out of consumer name's
// hands before it processed them.
func (c *Cluster) NeverProcessed(name string) int {
	c.ledger.init()
	return c.ledger.dropped[name]
}

// Process is the application processing the records consumer co holds:
// the cluster runs for d (heartbeats go on, the consumer does not poll),
// then each record counts as processed. It returns the processings.
func (c *Cluster) Process(co *client.Consumer, d time.Duration) ([]Processed, error) {
	if err := c.CheckAdvance(d); err != nil {
		return nil, err
	}
	c.ledger.init()
	name := string(co.ID)
	if d > 0 {
		c.ledger.busyUntil[name] = c.clock.Elapsed() + d
		if err := c.Tick(d); err != nil {
			return nil, err
		}
	}
	done := c.ledger.process(c.processingScope(co), name, c.ledger.inHand[name])
	c.ledger.inHand[name] = nil
	return done, nil
}

// dropInHand forgets what consumer name held, unprocessed: a crash.
func (c *Cluster) dropInHand(name string) int {
	c.ledger.init()
	n := len(c.ledger.inHand[name])
	c.ledger.dropped[name] += n
	delete(c.ledger.inHand, name)
	return n
}

// String prints a processing the way the lab reports it.
func (p Processed) String() string {
	s := fmt.Sprintf("%s processed %s/%d offset %d", p.Consumer, p.TP.Topic, p.TP.Partition, p.Offset)
	if p.Times > 1 {
		s += fmt.Sprintf(" AGAIN (%s time; first by %s)", ordinal(p.Times), p.First)
	}
	return s
}

func ordinal(n int) string {
	switch {
	case n%100 >= 11 && n%100 <= 13:
		return fmt.Sprintf("%dth", n)
	case n%10 == 1:
		return fmt.Sprintf("%dst", n)
	case n%10 == 2:
		return fmt.Sprintf("%dnd", n)
	case n%10 == 3:
		return fmt.Sprintf("%drd", n)
	}
	return fmt.Sprintf("%dth", n)
}
