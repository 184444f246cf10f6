package broker

import (
	"fmt"
	"time"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
)

// The broker's producer id manager, Kafka's RPCProducerIdManager
// (KIP-730): ids come from blocks of kraft.ProducerIDBlockSize the
// controller grants with AllocateProducerIds, each a ProducerIds record in
// __cluster_metadata, so ids are unique across brokers, restarts and
// controller failovers. A broker starts, and restarts, with no block: its
// first InitProducerId is answered COORDINATOR_LOAD_IN_PROGRESS while it
// asks for one (the producer retries it, as Kafka's TransactionManager
// does after retry.backoff.ms), and once 90% of its block is handed out it
// asks for the next in the background so that it rarely runs dry.

// producerIDPrefetchPercent is RPCProducerIdManager's
// PidPrefetchThreshold (0.90): handing out the id at this percentage of
// the block asks for the next block.
const producerIDPrefetchPercent = 90

// producerIDIterationLimit is RPCProducerIdManager's IterationLimit: how
// many blocks one call may move through.
const producerIDIterationLimit = 3

// producerIDRetryBackoff is RPCProducerIdManager's RetryBackoffMs: after
// the controller refused a request, none is sent for this long.
const producerIDRetryBackoff = 50 * time.Millisecond

// controllerRetryTimeout is the retryTimeoutMs (60 s) of the broker's
// channel to the controller (BrokerServer's clientToControllerChannelManager):
// an AllocateProducerIds left unanswered that long is given up
// (RPCProducerIdManager.handleTimeout) and asked again on the next call.
const controllerRetryTimeout = 60 * time.Second

// controllerResendInterval is how often an unanswered AllocateProducerIds
// is sent again until controllerRetryTimeout.
//
// Difference from Kafka: Kafka's NodeToControllerChannelManager sends a
// request again when its connection to the controller closes (at once,
// to the new active controller) or after controller.socket.timeout.ms
// (30 s) without an answer; loglab's broker does not watch its connection
// to the controller and resends every second instead. A resend whose
// original was answered after all costs a block (a ProducerIds record the
// broker never uses): ids stay unique.
const controllerResendInterval = time.Second

// producerIDBlock is Kafka's ProducerIdsBlock: ids [first, first+size),
// handed out in order.
type producerIDBlock struct {
	first, next int64
	size        int32
}

func newProducerIDBlock(first int64, size int32) producerIDBlock {
	return producerIDBlock{first: first, next: first, size: size}
}

// last is the block's last id, first-1 for the empty block.
func (b producerIDBlock) last() int64 { return b.first + int64(b.size) - 1 }

// claim is ProducerIdsBlock.claimNextId.
func (b *producerIDBlock) claim() (int64, bool) {
	id := b.next
	b.next++
	return id, id <= b.last()
}

// producerIDManager is RPCProducerIdManager's state, a pure state
// machine: its methods say when to send AllocateProducerIds; the broker
// sends it and runs the timers (virtual time, now given by the caller).
type producerIDManager struct {
	current producerIDBlock  // ProducerIdsBlock.EMPTY at start
	next    *producerIDBlock // prefetched, nil for none
	// inFlight: a request is outstanding, or its block waits in next.
	inFlight bool
	// sentAt is when the outstanding request was first sent.
	sentAt time.Duration
	// backoffUntil: after a refusal, no request before it (-1: none).
	backoffUntil time.Duration
	// attempt numbers requests, so that a stale resend timer does nothing.
	attempt int
}

func newProducerIDManager() producerIDManager {
	return producerIDManager{backoffUntil: -1}
}

// generate is RPCProducerIdManager.generateProducerId: the next id of the
// current block, moving to the prefetched block when the current one is
// used up. Without a block it answers COORDINATOR_LOAD_IN_PROGRESS (Kafka
// chose it over REQUEST_TIMED_OUT because clients retry it). send says a
// request for the next block must go out now.
func (m *producerIDManager) generate(now time.Duration) (pid int64, code protocol.ErrorCode, send bool) {
	for range producerIDIterationLimit {
		id, ok := m.current.claim()
		if ok {
			if id == m.current.first+int64(m.current.size)*producerIDPrefetchPercent/100 {
				send = m.maybeRequest(now)
			}
			return id, protocol.None, send
		}
		if m.next == nil {
			return protocol.NoProducerID, protocol.CoordinatorLoadInProgress, m.maybeRequest(now)
		}
		m.current, m.next, m.inFlight = *m.next, nil, false
	}
	return protocol.NoProducerID, protocol.CoordinatorLoadInProgress, send
}

// maybeRequest is RPCProducerIdManager.maybeRequestNextBlock: one request
// at a time, none while a block waits, none during the backoff.
func (m *producerIDManager) maybeRequest(now time.Duration) bool {
	if m.backoffUntil != -1 && now < m.backoffUntil {
		return false
	}
	if m.next != nil || m.inFlight {
		return false
	}
	m.inFlight, m.sentAt, m.backoffUntil = true, now, -1
	m.attempt++
	return true
}

// onResponse is RPCProducerIdManager.handleAllocateProducerIdsResponse:
// a valid grant becomes the next block; a refusal (STALE_BROKER_EPOCH,
// BROKER_ID_NOT_REGISTERED, anything else) or an invalid block backs off
// and lets the next call ask again. It returns why an answer was refused,
// "" when its block was taken or it answered no waiting request.
func (m *producerIDManager) onResponse(resp protocol.AllocateProducerIdsResponse, now time.Duration) string {
	if !m.inFlight || m.next != nil {
		// An answer to a resent request whose original was answered
		// already: its block is never used.
		return ""
	}
	why := ""
	switch {
	case resp.Error != protocol.None:
		why = resp.Error.Name()
	case resp.ProducerIDStart < m.current.last():
		why = fmt.Sprintf("its block starts at %d, below the current block's last id %d", resp.ProducerIDStart, m.current.last())
	case resp.ProducerIDStart < 0 || resp.ProducerIDLen < 0 || resp.ProducerIDStart > (1<<63-1)-int64(resp.ProducerIDLen):
		why = fmt.Sprintf("invalid id range start %d length %d", resp.ProducerIDStart, resp.ProducerIDLen)
	default:
		b := newProducerIDBlock(resp.ProducerIDStart, resp.ProducerIDLen)
		m.next = &b
		return ""
	}
	m.backoffUntil, m.inFlight = now+producerIDRetryBackoff, false
	return why
}

// onResendTimer decides, for the resend timer of request attempt, whether
// to send it again (resend) and whether to keep the timer (again).
// Unanswered for controllerRetryTimeout, the request is given up, as
// RPCProducerIdManager.handleTimeout does.
func (m *producerIDManager) onResendTimer(attempt int, now time.Duration) (resend, again bool) {
	if attempt != m.attempt || !m.inFlight || m.next != nil {
		return false, false
	}
	if now-m.sentAt >= controllerRetryTimeout {
		m.inFlight = false
		return false, false
	}
	return true, true
}

// nextProducerID hands out the next producer id of this broker's block
// (Kafka's TransactionCoordinator calling generateProducerId). done runs
// before nextProducerID returns, with the id, or with
// COORDINATOR_LOAD_IN_PROGRESS while the broker has no block: the broker
// has then asked the controller for one, and the producer retries.
func (b *Broker) nextProducerID(done func(pid int64, code protocol.ErrorCode)) {
	pid, code, send := b.pids.generate(b.sched.Clock.Elapsed())
	if send {
		b.requestProducerIDs()
	}
	done(pid, code)
}

// requestProducerIDs sends AllocateProducerIds and resends it until it is
// answered or given up.
func (b *Broker) requestProducerIDs() {
	attempt := b.pids.attempt
	req := protocol.AllocateProducerIdsRequest{BrokerID: b.ID, BrokerEpoch: b.epoch}
	b.send(kraft.ControllerNode, req)
	var resend func()
	resend = func() {
		send, again := b.pids.onResendTimer(attempt, b.sched.Clock.Elapsed())
		if send {
			b.send(kraft.ControllerNode, req)
		}
		if again {
			b.after(controllerResendInterval, "allocate-producer-ids", resend)
		}
	}
	b.after(controllerResendInterval, "allocate-producer-ids", resend)
}

// handleAllocateProducerIDs takes the controller's answer.
func (b *Broker) handleAllocateProducerIDs(m protocol.AllocateProducerIdsResponse) {
	if why := b.pids.onResponse(m, b.sched.Clock.Elapsed()); why != "" {
		b.events(fmt.Sprintf("%s: AllocateProducerIds answer not used (%s); the next InitProducerId asks again", b.Node, why))
	}
}

// ProducerIDBlock is this broker's current block of producer ids, [first,
// last], and the next id it hands out; ok is false while it has none.
func (b *Broker) ProducerIDBlock() (first, last, next int64, ok bool) {
	c := b.pids.current
	if c.size == 0 {
		return 0, 0, 0, false
	}
	return c.first, c.last(), c.next, true
}

// GenerateProducerID is nextProducerID for drivers outside the broker
// (tests, the simulation's checks): done runs before it returns.
func (b *Broker) GenerateProducerID(done func(pid int64, code protocol.ErrorCode)) {
	b.nextProducerID(done)
}
