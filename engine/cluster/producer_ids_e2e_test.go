package cluster

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/kraft"
	"github.com/loglab/loglab/engine/protocol"
)

// pidsFrom takes n producer ids from broker id, as InitProducerId does,
// retrying COORDINATOR_LOAD_IN_PROGRESS the way a producer does (after
// retry.backoff.ms, 100 ms).
func pidsFrom(t *testing.T, c *Cluster, id, n int) []int64 {
	t.Helper()
	var out []int64
	for len(out) < n {
		var pid int64
		var code protocol.ErrorCode
		c.Broker(id).GenerateProducerID(func(p int64, e protocol.ErrorCode) { pid, code = p, e })
		switch code {
		case protocol.None:
			out = append(out, pid)
		case protocol.CoordinatorLoadInProgress:
			if err := c.Tick(100 * time.Millisecond); err != nil {
				t.Fatal(err)
			}
			if c.Elapsed() > 10*time.Minute {
				t.Fatalf("broker %d never got a block of producer ids", id)
			}
		default:
			t.Fatalf("broker %d answered %s", id, code.Name())
		}
	}
	return out
}

// Producer ids are unique across brokers, a broker restart and a
// controller failover, because every block is a ProducerIds record in
// __cluster_metadata that the next active controller replays; `show
// metadata` lists the grants.
func TestProducerIDsUniqueAcrossBrokersAndControllerFailover(t *testing.T) {
	c := newTestCluster(t, 3)
	owner := map[int64]int{} // id -> broker that handed it out
	take := func(id, n int) {
		for _, pid := range pidsFrom(t, c, id, n) {
			if other, dup := owner[pid]; dup {
				t.Fatalf("producer id %d handed out by broker %d and again by broker %d", pid, other, id)
			}
			owner[pid] = id
		}
	}
	take(1, 950) // past 90%: broker 1 prefetches its second block
	take(2, 10)
	take(3, 10)
	if err := c.CrashController(c.ActiveController()); err != nil {
		t.Fatal(err)
	}
	waitActive(t, c)
	take(2, 1000) // runs through its block: the next comes from the new controller
	take(1, 100)
	if err := c.CrashBroker(3, false); err != nil {
		t.Fatal(err)
	}
	if err := c.RestartBroker(3); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.RunUntil(func() bool { return c.allUnfenced() }, time.Minute); err != nil || !ok {
		t.Fatalf("broker 3 never came back (err %v)", err)
	}
	take(3, 10) // a restarted broker starts with no block: it asks for a new one

	// Every id lies in a block granted to the broker that handed it out,
	// blocks follow one another from 0, and show metadata prints them.
	recs, _, err := c.MetadataLog().ReadLog(0)
	if err != nil {
		t.Fatal(err)
	}
	type block struct {
		broker      int32
		first, next int64
	}
	var blocks []block
	var described []string
	for _, r := range recs {
		if r.Type != "ProducerIds" {
			continue
		}
		first := int64(len(blocks)) * kraft.ProducerIDBlockSize
		if r.NextProducerID != first+kraft.ProducerIDBlockSize {
			t.Fatalf("ProducerIds record %d has nextProducerId %d, want %d", len(blocks), r.NextProducerID, first+kraft.ProducerIDBlockSize)
		}
		if b := c.Controller().Image().Broker(r.BrokerID); b == nil {
			t.Fatalf("block granted to unknown broker %d", r.BrokerID)
		}
		blocks = append(blocks, block{r.BrokerID, first, r.NextProducerID})
		described = append(described, r.Describe())
	}
	// Broker 1: two blocks; broker 2: one before and one after the
	// failover; broker 3: one per incarnation.
	if len(blocks) != 6 {
		t.Fatalf("%d ProducerIds records, want 6:\n%s", len(blocks), strings.Join(described, "\n"))
	}
	ids := make([]int64, 0, len(owner))
	for pid := range owner {
		ids = append(ids, pid)
	}
	slices.Sort(ids)
	for _, pid := range ids {
		i := slices.IndexFunc(blocks, func(b block) bool { return pid >= b.first && pid < b.next })
		if i < 0 || int(blocks[i].broker) != owner[pid] {
			t.Fatalf("producer id %d from broker %d is not in a block granted to it (%+v)", pid, owner[pid], blocks)
		}
	}
	if !strings.HasPrefix(strings.SplitN(described[0], " ", 2)[1], "ProducerIds brokerId=1 brokerEpoch=") ||
		!strings.HasSuffix(described[0], " nextProducerId=1000") {
		t.Fatalf("show metadata prints %q", described[0])
	}
	if got := c.Controller().Image().ProducerIDs.NextProducerID; got != 6*kraft.ProducerIDBlockSize {
		t.Fatalf("the active controller's image says the next block starts at %d, want %d", got, 6*kraft.ProducerIDBlockSize)
	}
	noViolations(t, c)
}

// A controller that caught up from a raft snapshot (the log it missed was
// compacted) knows where the next block starts: the image it restored
// carries the producer id state, so once it leads it grants no id twice.
func TestProducerIDsSurviveAMetadataSnapshot(t *testing.T) {
	cfg := DefaultConfig()
	cfg.SnapshotThreshold = 8
	c, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.CrashController(3); err != nil {
		t.Fatal(err)
	}
	var before []int64
	for _, id := range []int{1, 2, 3} {
		before = append(before, pidsFrom(t, c, id, 1)...)
	}
	for _, name := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		if err := c.CreateTopic(name, 1, 3, nil); err != nil { // enough records to compact the log
			t.Fatal(err)
		}
	}
	if err := c.RestartController(3); err != nil {
		t.Fatal(err)
	}
	if err := c.Tick(time.Second); err != nil {
		t.Fatal(err)
	}
	if st := c.VoterStatuses()[2]; st.SnapshotEnd <= 0 || st.LogStart != st.SnapshotEnd {
		t.Fatalf("controller 3 did not restore a snapshot: %+v", st)
	}
	for _, id := range []int{1, 2} {
		if err := c.CrashController(id); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.RestartController(1); err != nil {
		t.Fatal(err)
	}
	waitActive(t, c)
	active := c.ActiveController()
	if st := c.VoterStatuses()[active-1]; st.SnapshotEnd <= 0 {
		t.Fatalf("the active controller %d did not restore a snapshot, the test proves nothing: %+v", active, st)
	}
	if got := c.Controller().Image().ProducerIDs.NextProducerID; got != 3*kraft.ProducerIDBlockSize {
		t.Fatalf("after the snapshot the next block starts at %d, want %d", got, 3*kraft.ProducerIDBlockSize)
	}
	if err := c.CrashBroker(1, false); err != nil {
		t.Fatal(err)
	}
	if err := c.RestartBroker(1); err != nil {
		t.Fatal(err)
	}
	after := pidsFrom(t, c, 1, 1)
	if slices.Contains(before, after[0]) || after[0] < 3*kraft.ProducerIDBlockSize {
		t.Fatalf("restarted broker 1 got producer id %d; ids before the snapshot were %v", after[0], before)
	}
}
