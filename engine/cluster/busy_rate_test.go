package cluster

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// Rate.Busy holds a node to its bound with what it sent of its own: a
// broker's answers to clients' requests and a producer's FindCoordinator
// sent at once after its coordinator refused the connection (Kafka's
// Sender.maybeFindCoordinatorAndRetry, TransactionManagerTest's
// testLookupCoordinatorOnDisconnectBeforeSend) are the clients' traffic
// and a fault's, not the node's loop.
func TestRateBusyCountsOwnSends(t *testing.T) {
	cases := []struct {
		name string
		r    Rate
		busy bool
	}{
		{"quiet", Rate{Sent: 90, Bound: 24}, false},
		{"over its bound", Rate{Sent: 339, Bound: 24}, true},
		{"over only by answering clients", Rate{Sent: 339, Answers: 309, Bound: 24}, false},
		{"answers and a loop of its own", Rate{Sent: 3310, Answers: 300, Bound: 72}, true},
		{"a refused coordinator's FindCoordinator loop", Rate{Sent: 3226, Explained: 3212, Bound: 20}, false},
		{"a loop beside the explained one", Rate{Sent: 3226, Explained: 1000, Bound: 20}, true},
	}
	for _, c := range cases {
		c.r.Node, c.r.Over = "n", 10*time.Second
		if got := c.r.Busy(); got != c.busy {
			t.Errorf("%s: %v busy %v, want %v", c.name, c.r, got, c.busy)
		}
	}
}

// busyBound of a transactional producer adds, as it is, what Kafka's
// TransactionManager sends while its coordinator is not available: a
// FindCoordinator at once and the request again after the fixed
// retry.backoff.ms (InitProducerIdHandler.handleResponse's
// lookupCoordinator then reenqueue), two per retry.backoff.ms.
func TestBusyBoundOfATransactionalProducer(t *testing.T) {
	c := newTestCluster(t, 1)
	for _, tc := range []struct {
		name    string
		txnID   string
		backoff time.Duration
		want    float64
	}{
		{"plain", "", 100 * time.Millisecond, 20},
		{"transactional", "tx", 100 * time.Millisecond, 40},
		{"transactional, slower", "tx2", 250 * time.Millisecond, 28},
	} {
		cfg := client.DefaultProducerConfig()
		cfg.RetryBackoff = tc.backoff
		if tc.txnID != "" {
			cfg.EnableIdempotence, cfg.TransactionalID = true, tc.txnID
		}
		p, err := c.CreateProducer("p-"+tc.name[:4]+tc.txnID, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.busyBound(p.ID); got != tc.want {
			t.Errorf("%s: bound %.1f/s, want %.1f/s", tc.name, got, tc.want)
		}
	}
}

// Clients each retrying at their retry.backoff.ms against one broker (seed
// 945: three transactional producers told COORDINATOR_NOT_AVAILABLE every
// 100 ms) make the broker answer more than its own bound; the answers are
// the clients' traffic, within theirs, and no busy loop. A broker that
// writes to a client unasked is still one.
func TestLivenessBrokerAnsweringClientsIsNotBusy(t *testing.T) {
	c, _, leader := livenessCluster(t)
	b := c.Broker(leader)
	var clients []sim.NodeID
	for i := range 6 {
		p, err := c.CreateProducer(fmt.Sprintf("r%d", i), client.DefaultProducerConfig())
		if err != nil {
			t.Fatal(err)
		}
		clients = append(clients, p.ID)
	}
	var ask func()
	ask = func() {
		for _, id := range clients {
			c.net.Send(id, b.Node, protocol.MetadataRequest{CorrelationID: -1})
		}
		c.sched.After(100*time.Millisecond, "ask", ask)
	}
	ask()
	s, err := c.Stabilize()
	if err != nil {
		t.Fatal(err)
	}
	var rate Rate
	for _, r := range s.Rates {
		if r.Node == b.Node {
			rate = r
		}
	}
	if len(s.Busy) != 0 || rate.PerSecond() <= rate.Bound || rate.Answers == 0 {
		t.Fatalf("a broker answering six clients every 100 ms: busy %v, its rate %v", s.Busy, rate)
	}
	if vs := c.Checker().Violations(); len(vs) > 0 {
		t.Fatalf("violations %v", vs)
	}

	var push func()
	push = func() {
		c.net.Send(b.Node, clients[0], protocol.MetadataResponse{CorrelationID: -1})
		c.sched.After(2*time.Millisecond, "push", push)
	}
	push()
	s, err = c.Stabilize()
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Busy) != 1 || s.Busy[0].Node != b.Node {
		t.Fatalf("a broker writing to a client every 2 ms unasked: busy %v", s.Busy)
	}
}

// A broker restarted while its metadata fetches to the KRaft quorum's
// leader are lost cannot replay its own registration record, so the
// controller answers its heartbeats fenced and, as Kafka's
// BrokerLifecycleManager does in STARTING (BrokerLifecycleManagerTest;
// scheduleNextCommunication 10 ms after each answer until isCaughtUp), it
// asks again 10 ms later for as long as the fault lasts (VOPR seed 719
// found it with a cut link to the leader, which since cuts the active
// controller's address too: the broker then hears nothing and waits). That loop, and the controller's
// answers, are Kafka's while the fault lasts: said with it, no violation.
// Fast heartbeats from a broker in no such state are still a busy loop.
func TestLivenessStartingBrokerCutOffFromTheQuorumLeader(t *testing.T) {
	for _, tc := range []struct {
		name string
		cut  bool          // cut the restarted broker off from the quorum's leader
		loop time.Duration // a heartbeat loop of the engine's own, from a running broker (0: none)
		busy bool
	}{
		{"BrokerLifecycleManager: STARTING, its metadata fetches dropped, heartbeats every 10 ms", true, 0, false},
		{"not cut off: it catches up, is unfenced and heartbeats at the interval", false, 0, false},
		{"a running broker heartbeating every 10 ms is still a busy loop", false, 10 * time.Millisecond, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _, leader := livenessCluster(t)
			f := follower(c, leader)
			if err := c.CrashBroker(f, false); err != nil {
				t.Fatal(err)
			}
			if err := c.Tick(c.Config().SessionTimeout + 2*time.Second); err != nil {
				t.Fatal(err)
			}
			b := c.Broker(f)
			quorumLeader := c.ControllerNode(c.ActiveController())
			if tc.cut {
				// A drop rule, not a cut link: a broker cut from the quorum's
				// leader is cut from the active controller too and hears no
				// answers (TestCutFromTheActiveControllerCutsItsAddress).
				c.net.Drop(sim.DropRule{From: kraft.BrokerNode(int32(f)), To: quorumLeader, Kind: "Fetch"})
			}
			if err := c.RestartBroker(f); err != nil {
				t.Fatal(err)
			}
			b = c.Broker(f)
			if tc.loop > 0 {
				other := c.Broker(leader)
				var beat func()
				beat = func() {
					c.net.Send(other.Node, kraft.ControllerNode, protocol.BrokerHeartbeatRequest{BrokerID: other.ID, BrokerEpoch: other.Epoch(), MetadataOffset: other.MetadataOffset(), Seq: -1})
					c.sched.After(tc.loop, "beat", beat)
				}
				beat()
			}
			s, err := c.Stabilize()
			if err != nil {
				t.Fatal(err)
			}
			var busy []sim.NodeID
			for _, r := range s.Busy {
				busy = append(busy, r.Node)
			}
			if (len(busy) > 0) != tc.busy {
				t.Fatalf("busy %v, want busy=%v; rates %v", busy, tc.busy, s.Rates)
			}
			if !tc.cut {
				if len(s.Explained) > 0 {
					t.Fatalf("explained %v with no broker cut off", s.Explained)
				}
				return
			}
			if !b.Starting() {
				t.Fatalf("b%d is not starting behind the cut", f)
			}
			var nodes []sim.NodeID
			for _, r := range s.Explained {
				nodes = append(nodes, r.Node)
				if !strings.Contains(r.Fault, "quorum's leader") || !strings.Contains(r.String(), "every 10 ms") && r.Node == b.Node {
					t.Errorf("explained without the fault: %v", r)
				}
			}
			if !slices.Contains(nodes, b.Node) || !slices.Contains(nodes, kraft.ControllerNode) {
				t.Fatalf("explained %v, want b%d and the controller; rates %v", nodes, f, s.Rates)
			}
			if vs := c.Checker().Violations(); len(vs) > 0 {
				t.Fatalf("violations %v", vs)
			}
			c.net.Heal()
			if s, err := c.Stabilize(); err != nil || !s.Converged() || len(s.Explained) > 0 {
				t.Fatalf("after the heal: %+v, %v", s, err)
			}
		})
	}
}
