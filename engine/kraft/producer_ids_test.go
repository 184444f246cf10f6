package kraft

import (
	"reflect"
	"testing"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// The controller's decision on AllocateProducerIds, case by case as
// Kafka's ProducerIdControlManager.generateNextProducerId and
// ClusterControlManager.checkBrokerEpoch decide it.
func TestProducerIDBlockDecisions(t *testing.T) {
	for _, tc := range []struct {
		name      string
		next      int64 // the image's next producer id
		req       protocol.AllocateProducerIdsRequest
		wantErr   protocol.ErrorCode
		wantStart int64
	}{
		{"checkBrokerEpoch: the first block starts at 0", 0, protocol.AllocateProducerIdsRequest{BrokerID: 1, BrokerEpoch: 1}, protocol.None, 0},
		{"generateNextProducerId: the next block starts where the last ended", 3000, protocol.AllocateProducerIdsRequest{BrokerID: 2, BrokerEpoch: 2}, protocol.None, 3000},
		{"checkBrokerEpoch: no registration", 0, protocol.AllocateProducerIdsRequest{BrokerID: 9, BrokerEpoch: 1}, protocol.StaleBrokerEpoch, 0},
		{"checkBrokerEpoch: an older incarnation's epoch", 0, protocol.AllocateProducerIdsRequest{BrokerID: 1, BrokerEpoch: 0}, protocol.StaleBrokerEpoch, 0},
		{"generateNextProducerId: ids exhausted", 1<<63 - 1 - 999, protocol.AllocateProducerIdsRequest{BrokerID: 1, BrokerEpoch: 1}, unknownServerError, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := controllerWithBrokers(t, 3, 1)
			c.image.ProducerIDs.NextProducerID = tc.next
			resp, rec := c.producerIDBlock(tc.req)
			if resp.Error != tc.wantErr {
				t.Fatalf("error %s, want %s", resp.Error.Name(), tc.wantErr.Name())
			}
			if tc.wantErr != protocol.None {
				if rec != nil {
					t.Fatalf("a refused request writes %+v", *rec)
				}
				return
			}
			if resp.ProducerIDStart != tc.wantStart || resp.ProducerIDLen != ProducerIDBlockSize {
				t.Fatalf("granted [%d, +%d), want [%d, +%d)", resp.ProducerIDStart, resp.ProducerIDLen, tc.wantStart, ProducerIDBlockSize)
			}
			want := protocol.MetadataRecord{Type: "ProducerIds", BrokerID: tc.req.BrokerID, BrokerEpoch: tc.req.BrokerEpoch, NextProducerID: tc.wantStart + ProducerIDBlockSize}
			if rec == nil || !reflect.DeepEqual(*rec, want) {
				t.Fatalf("record %+v, want %+v", rec, want)
			}
		})
	}
}

// allocate sends AllocateProducerIds from broker id's address and returns
// the controller's answer, with the metadata log's end when it arrived.
func allocate(t *testing.T, c *Controller, id int32, epoch int64) (protocol.AllocateProducerIdsResponse, int64) {
	t.Helper()
	var got *protocol.AllocateProducerIdsResponse
	var logEnd int64
	c.net.Attach(BrokerNode(id), func(env *sim.Envelope) {
		if m, ok := env.Msg.(protocol.AllocateProducerIdsResponse); ok {
			got, logEnd = &m, c.log.End()
		}
	})
	c.net.Send(BrokerNode(id), ControllerNode, protocol.AllocateProducerIdsRequest{BrokerID: id, BrokerEpoch: epoch})
	for got == nil {
		if _, ok := c.sched.Step(); !ok {
			t.Fatal("no answer to AllocateProducerIds")
		}
	}
	return *got, logEnd
}

// Blocks are granted in order without overlap, each answered only once
// its ProducerIds record is in the metadata log, and a controller taking
// over from the log (a failover) or from a snapshot of the image goes on
// after the last grant instead of granting ids again.
func TestProducerIDBlocksSurviveFailoverAndSnapshots(t *testing.T) {
	c := controllerWithBrokers(t, 3, 1)
	for i, id := range []int32{1, 2, 1} {
		end := c.log.End()
		resp, endAtAnswer := allocate(t, c, id, int64(id))
		if resp.Error != protocol.None || resp.ProducerIDStart != int64(i)*ProducerIDBlockSize || resp.ProducerIDLen != ProducerIDBlockSize {
			t.Fatalf("grant %d to broker %d: %+v", i, id, resp)
		}
		recs := c.log.Read(end)
		if endAtAnswer != end+1 || len(recs) != 1 || recs[0].Type != "ProducerIds" || recs[0].NextProducerID != int64(i+1)*ProducerIDBlockSize {
			t.Fatalf("grant %d: answered at log end %d with records %+v, want one ProducerIds record committed first", i, endAtAnswer, recs)
		}
	}
	if resp, _ := allocate(t, c, 3, 1); resp.Error != protocol.StaleBrokerEpoch {
		t.Fatalf("a stale epoch got %+v", resp)
	}

	// Failover: the next active controller replays the log.
	c.Stop()
	next := NewController(c.cfg, c.net, c.sched, c.rng, c.log, nil, func(string) {})
	if resp, _ := allocate(t, next, 3, 3); resp.ProducerIDStart != 3*ProducerIDBlockSize {
		t.Fatalf("after a failover the grant starts at %d, want %d", resp.ProducerIDStart, 3*ProducerIDBlockSize)
	}

	// A snapshot of the image keeps the allocation state.
	im := next.Image()
	rebuilt := ImageFromRecords(im.Records(), im.Offset)
	if !reflect.DeepEqual(rebuilt, im) {
		t.Fatalf("image rebuilt from its snapshot differs:\n got %+v\nwant %+v", rebuilt.ProducerIDs, im.ProducerIDs)
	}
	if want := (ProducerIDsInfo{NextProducerID: 4 * ProducerIDBlockSize, BrokerID: 3, BrokerEpoch: 3}); rebuilt.ProducerIDs != want {
		t.Fatalf("snapshot's producer ids %+v, want %+v", rebuilt.ProducerIDs, want)
	}
	from := NewController(next.cfg, next.net, next.sched, next.rng, next.log, rebuilt, func(string) {})
	next.Stop()
	if resp, _ := allocate(t, from, 2, 2); resp.ProducerIDStart != 4*ProducerIDBlockSize {
		t.Fatalf("a controller resuming from a snapshot grants from %d, want %d", resp.ProducerIDStart, 4*ProducerIDBlockSize)
	}
}
