package broker

import (
	"slices"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
	"github.com/loglab/loglab/engine/storage"
)

// The heartbeat loop is BrokerLifecycleManager's (BrokerLifecycleManagerTest):
// one heartbeat in flight; after a fenced answer while STARTING the next
// goes 10 ms later, after an unfenced one broker.heartbeat.interval.ms
// later; an unanswered one goes again after the interval; and an answer to
// a heartbeat given up on schedules nothing (one loop, never two).
func TestHeartbeatLoopFollowsBrokerLifecycleManager(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer func(n int) (reply bool, fenced bool) // for the n-th heartbeat (from 1)
		want   []time.Duration                       // gaps between the first heartbeats, in ms (a round trip is 2 ms)
	}{
		{"STARTING: 10 ms after each fenced answer, then the interval once unfenced",
			func(n int) (bool, bool) { return true, n <= 3 },
			[]time.Duration{12, 12, 12, 2002}},
		{"no answer: again after the interval, one at a time",
			func(n int) (bool, bool) { return false, true },
			[]time.Duration{2000, 2000, 2000}},
		{"a lost answer, then fenced: the loop goes on at 10 ms",
			func(n int) (bool, bool) { return n != 2, true },
			[]time.Duration{12, 2000, 12, 12}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := &sim.Clock{}
			sched := sim.NewScheduler(clock)
			net := sim.NewNetwork(sched)
			var sent []time.Duration
			net.Attach(kraft.ControllerNode, func(env *sim.Envelope) {
				switch m := env.Msg.(type) {
				case protocol.BrokerRegistrationRequest:
					net.Send(kraft.ControllerNode, env.From, protocol.BrokerRegistrationResponse{BrokerEpoch: 5, Attempt: m.Attempt, Incarnation: m.Incarnation})
				case protocol.BrokerHeartbeatRequest:
					sent = append(sent, clock.Elapsed())
					if reply, fenced := tc.answer(len(sent)); reply {
						net.Send(kraft.ControllerNode, env.From, protocol.BrokerHeartbeatResponse{Fenced: fenced, Seq: m.Seq})
					}
				}
			})
			New(1, 1, DefaultConfig(), net, sched, storage.NewMem(), func(string) {})
			if _, err := sched.RunUntil(10*time.Second, 100_000); err != nil {
				t.Fatal(err)
			}
			var gaps []time.Duration
			for i := 1; i < len(sent) && len(gaps) < len(tc.want); i++ {
				gaps = append(gaps, (sent[i]-sent[i-1])/time.Millisecond)
			}
			if !slices.Equal(gaps, tc.want) {
				t.Errorf("gaps between heartbeats %d ms, want %d ms", gaps, tc.want)
			}
		})
	}
}
