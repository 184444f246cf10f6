package broker

import (
	"testing"
	"time"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
	"github.com/loglab/loglab/engine/storage"
)

func grant(first int64) protocol.AllocateProducerIdsResponse {
	return protocol.AllocateProducerIdsResponse{ProducerIDStart: first, ProducerIDLen: kraft.ProducerIDBlockSize}
}

// generateN claims n ids at now and returns the last, failing on an error;
// sends counts the requests the calls asked for.
func generateN(t *testing.T, m *producerIDManager, n int, now time.Duration) (last int64, sends int) {
	t.Helper()
	for range n {
		pid, code, send := m.generate(now)
		if code != protocol.None {
			t.Fatalf("generate answered %s after %d ids", code.Name(), n)
		}
		if send {
			sends++
		}
		last = pid
	}
	return last, sends
}

// RPCProducerIdManager's behaviour, step by step, as Kafka's
// ProducerIdManagerTest checks it.
func TestProducerIDManager(t *testing.T) {
	t.Run("generateProducerId without a block answers COORDINATOR_LOAD_IN_PROGRESS and asks once", func(t *testing.T) {
		m := newProducerIDManager()
		for i, wantSend := range []bool{true, false, false} {
			pid, code, send := m.generate(0)
			if pid != protocol.NoProducerID || code != protocol.CoordinatorLoadInProgress || send != wantSend {
				t.Fatalf("call %d: %d %s send=%v, want -1 COORDINATOR_LOAD_IN_PROGRESS send=%v", i, pid, code.Name(), send, wantSend)
			}
		}
	})
	t.Run("the first block's ids in order; the next block is asked for at 90% (PidPrefetchThreshold)", func(t *testing.T) {
		m := newProducerIDManager()
		m.generate(0)
		if why := m.onResponse(grant(0), 0); why != "" {
			t.Fatalf("grant refused: %s", why)
		}
		last, sends := generateN(t, &m, 900, 0)
		if last != 899 || sends != 0 {
			t.Fatalf("ids 0-899: last %d, %d requests, want 899 and none", last, sends)
		}
		if pid, _, send := m.generate(0); pid != 900 || !send {
			t.Fatalf("id 900 asks for the next block: got %d send=%v", pid, send)
		}
		if last, sends := generateN(t, &m, 99, 0); last != 999 || sends != 0 {
			t.Fatalf("ids 901-999: last %d, %d requests (one is in flight)", last, sends)
		}
		if pid, code, _ := m.generate(0); code != protocol.CoordinatorLoadInProgress {
			t.Fatalf("a used-up block with no next one answered %d %s", pid, code.Name())
		}
		m.onResponse(grant(5000), 0)
		if pid, code, _ := m.generate(0); pid != 5000 || code != protocol.None {
			t.Fatalf("after the grant: %d %s, want 5000", pid, code.Name())
		}
	})
	t.Run("a prefetched block takes over when the current one is used up", func(t *testing.T) {
		m := newProducerIDManager()
		m.generate(0)
		m.onResponse(grant(0), 0)
		generateN(t, &m, 901, 0)
		m.onResponse(grant(3000), 0)
		if last, _ := generateN(t, &m, 100, 0); last != 3000 {
			t.Fatalf("the id after 999 is %d, want 3000", last)
		}
	})
	t.Run("handleAllocateProducerIdsResponse: a refusal backs off RetryBackoffMs", func(t *testing.T) {
		m := newProducerIDManager()
		m.generate(0)
		if why := m.onResponse(protocol.AllocateProducerIdsResponse{Error: protocol.StaleBrokerEpoch}, 0); why != "STALE_BROKER_EPOCH" {
			t.Fatalf("refusal reported as %q", why)
		}
		if _, _, send := m.generate(producerIDRetryBackoff - time.Millisecond); send {
			t.Fatal("asked again during the backoff")
		}
		if _, _, send := m.generate(producerIDRetryBackoff); !send {
			t.Fatal("did not ask again after the backoff")
		}
	})
	t.Run("handleAllocateProducerIdsResponse: a block below the current one is refused", func(t *testing.T) {
		m := newProducerIDManager()
		m.generate(0)
		m.onResponse(grant(2000), 0)
		generateN(t, &m, 901, 0)
		if why := m.onResponse(grant(1000), 0); why == "" {
			t.Fatal("a block below the current one was taken")
		}
		if m.next != nil || m.inFlight {
			t.Fatalf("state after the refusal: next %v in flight %v", m.next, m.inFlight)
		}
	})
	t.Run("an answer nobody waits for (a resend's) is not used", func(t *testing.T) {
		m := newProducerIDManager()
		m.generate(0)
		m.onResponse(grant(0), 0)
		if why := m.onResponse(grant(1000), 0); why != "" || m.next.first != 0 {
			t.Fatalf("second answer: %q, next block starts at %d, want the first answer's 0", why, m.next.first)
		}
	})
	t.Run("handleTimeout: unanswered, resent until the channel's retry timeout, then asked again on the next call", func(t *testing.T) {
		m := newProducerIDManager()
		m.generate(0)
		attempt := m.attempt
		resends := 0
		now := time.Duration(0)
		for {
			now += controllerResendInterval
			resend, again := m.onResendTimer(attempt, now)
			if resend {
				resends++
			}
			if !again {
				break
			}
		}
		if now != controllerRetryTimeout || resends != int(controllerRetryTimeout/controllerResendInterval)-1 {
			t.Fatalf("gave up at %v after %d resends", now, resends)
		}
		if _, _, send := m.generate(now); !send || m.attempt == attempt {
			t.Fatal("the next call after the timeout did not ask again")
		}
		if resend, again := m.onResendTimer(attempt, now+controllerResendInterval); resend || again {
			t.Fatal("the old request's timer resends")
		}
	})
}

// The broker's manager on the network: a lost AllocateProducerIds is sent
// again, the grant serves the next InitProducerId, and a restarted broker
// starts with no block.
func TestBrokerProducerIDsResendAndRestart(t *testing.T) {
	h := newHarness(t, []int32{1}, []int32{1}, "1")
	var requests []protocol.AllocateProducerIdsRequest
	h.net.Attach(kraft.ControllerNode, func(env *sim.Envelope) {
		m, ok := env.Msg.(protocol.AllocateProducerIdsRequest)
		if !ok {
			h.controller(env)
			return
		}
		requests = append(requests, m)
		if len(requests) > 1 { // the first is lost
			h.net.Send(kraft.ControllerNode, env.From, grant(7000))
		}
	})
	next := func() (int64, protocol.ErrorCode) {
		var pid int64
		var code protocol.ErrorCode
		calls := 0
		h.broker.nextProducerID(func(p int64, c protocol.ErrorCode) { pid, code = p, c; calls++ })
		if calls != 1 {
			t.Fatalf("done ran %d times", calls)
		}
		return pid, code
	}
	if _, code := next(); code != protocol.CoordinatorLoadInProgress {
		t.Fatalf("with no block: %s", code.Name())
	}
	h.run(controllerResendInterval / 2)
	if _, code := next(); code != protocol.CoordinatorLoadInProgress || len(requests) != 1 {
		t.Fatalf("before the resend: %s, %d requests", code.Name(), len(requests))
	}
	h.run(controllerResendInterval)
	if len(requests) != 2 || requests[1] != (protocol.AllocateProducerIdsRequest{BrokerID: 1, BrokerEpoch: 1}) {
		t.Fatalf("requests %+v, want the lost one sent again with the broker's id and epoch", requests)
	}
	if pid, code := next(); pid != 7000 || code != protocol.None {
		t.Fatalf("after the grant: %d %s, want 7000", pid, code.Name())
	}
	h.run(10 * controllerResendInterval)
	if len(requests) != 2 {
		t.Fatalf("%d requests after the grant, want no more", len(requests))
	}
	if first, last, nextID, ok := h.broker.ProducerIDBlock(); !ok || first != 7000 || last != 7999 || nextID != 7001 {
		t.Fatalf("block %d-%d next %d ok=%v", first, last, nextID, ok)
	}

	h.broker.Stop()
	h.broker = New(1, 1, DefaultConfig(), h.net, h.sched, storage.NewMem(), func(string) {})
	h.run(100 * time.Millisecond)
	if _, _, _, ok := h.broker.ProducerIDBlock(); ok {
		t.Fatal("a restarted broker kept its block")
	}
	if _, code := next(); code != protocol.CoordinatorLoadInProgress {
		t.Fatalf("a restarted broker answered %s, want COORDINATOR_LOAD_IN_PROGRESS", code.Name())
	}
}
