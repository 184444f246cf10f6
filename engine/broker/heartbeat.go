package broker

import (
	"slices"
	"time"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
)

// StartingHeartbeatInterval is how soon a broker that has not been
// unfenced yet heartbeats again after a fenced answer: Kafka's
// BrokerLifecycleManager, in STARTING, schedules the next heartbeat 10 ms
// after each answer ("so that in the case where there is no recovery work
// to be done, we start up a bit quicker"), for as long as the controller
// says it has not caught up to its own registration record.
const StartingHeartbeatInterval = 10 * time.Millisecond

// The heartbeat loop is Kafka's BrokerLifecycleManager's communication
// loop: one heartbeat in flight at a time, the next scheduled when its
// answer comes (10 ms later while starting, broker.heartbeat.interval.ms
// once unfenced), or sent again when no answer came within
// broker.heartbeat.interval.ms (Kafka waits broker.session.timeout.ms/2
// and backs off exponentially from 100 ms: docs/differences.md). A
// heartbeat asked for while one is in flight goes out as soon as the
// answer comes (nextSchedulingShouldBeImmediate).
type heartbeatLoop struct {
	seq       int64 // the newest heartbeat sent
	inFlight  bool
	immediate bool  // asked for while one was in flight: the next goes at once
	timer     int64 // numbers the scheduled next heartbeat: only the newest fires
	// starting counts the heartbeats sent before the controller first
	// unfenced this incarnation (StartingHeartbeats).
	starting uint64
}

// sendHeartbeat sends a heartbeat now, or as soon as the one in flight
// is answered.
func (b *Broker) sendHeartbeat() {
	if !b.registered {
		return
	}
	hb := &b.hb
	if hb.inFlight {
		hb.immediate = true
		return
	}
	hb.timer++ // a heartbeat sent now replaces the one scheduled
	hb.seq++
	hb.inFlight = true
	if !b.serving {
		hb.starting++
	}
	seq := hb.seq
	req := protocol.BrokerHeartbeatRequest{BrokerID: b.ID, BrokerEpoch: b.epoch, MetadataOffset: b.image.Offset, Seq: seq,
		OfflineReplicas: slices.Clone(b.offline), DamagedReplicas: slices.Clone(b.damaged)}
	for _, r := range b.replicas {
		if p := b.image.Partition(r.TP.Topic, r.TP.Partition); p != nil && p.Leader == -1 {
			req.LeaderlessLogEnds = append(req.LeaderlessLogEnds, protocol.ReplicaLogEnd{TP: r.TP, LogEnd: r.Log.EndOffset()})
		}
	}
	b.send(kraft.ControllerNode, req)
	b.after(b.cfg.HeartbeatInterval, "heartbeat timeout", func() {
		if hb.inFlight && hb.seq == seq {
			// No answer (a partition, a lost message, no active
			// controller): send it again.
			hb.inFlight = false
			b.sendHeartbeat()
		}
	})
}

// heartbeatAnswered takes the answer to heartbeat seq: false for an
// answer to one given up on.
func (b *Broker) heartbeatAnswered(seq int64) bool {
	if !b.hb.inFlight || seq != b.hb.seq {
		return false
	}
	b.hb.inFlight = false
	return true
}

// scheduleHeartbeat sends the next heartbeat after d (at once if one was
// asked for meanwhile), replacing any scheduled before.
func (b *Broker) scheduleHeartbeat(d time.Duration) {
	hb := &b.hb
	if hb.immediate {
		hb.immediate = false
		b.sendHeartbeat()
		return
	}
	hb.timer++
	timer := hb.timer
	b.after(d, "heartbeat", func() {
		if hb.timer == timer {
			b.sendHeartbeat()
		}
	})
}

// Starting reports whether this incarnation has registered but not yet
// been unfenced: it heartbeats every StartingHeartbeatInterval while the
// controller answers that it has not caught up to its registration.
func (b *Broker) Starting() bool { return b.alive && b.registered && !b.serving }

// StartingHeartbeats is how many heartbeats this incarnation sent while
// Starting: the liveness check tells Kafka's 10 ms loop of a broker that
// cannot catch up to its registration (the quorum's leader out of reach)
// from a loop of the engine's.
func (b *Broker) StartingHeartbeats() uint64 { return b.hb.starting }
