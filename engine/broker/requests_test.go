package broker

import (
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/protocol"
)

// TestRoutesRefuseRequestsUntilServingAndTakeAnswersAlways: the registry
// marks as a listener request exactly the kinds a client (or a broker
// acting as one) sends, KafkaApis's requests, so a starting broker closes
// their connection; every answer and the controller's metadata pass
// whenever they arrive (a starting broker needs its heartbeat answers to
// ever serve).
func TestRoutesRefuseRequestsUntilServingAndTakeAnswersAlways(t *testing.T) {
	for _, r := range routes {
		isRequest := strings.HasSuffix(r.typ.Name(), "Request")
		if r.request != isRequest {
			t.Errorf("%s (%v) is routed as request=%v", r.kind, r.typ, r.request)
		}
	}
}

// TestRoutesCoverEveryClientRequest: each request kind a client sends a
// broker has a route (a kind left out would be dropped silently and its
// client would wait for its timeout).
func TestRoutesCoverEveryClientRequest(t *testing.T) {
	for _, m := range []interface{ Kind() string }{
		protocol.MetadataRequest{}, protocol.ProduceRequest{}, protocol.FetchRequest{}, protocol.ListOffsetsRequest{},
		protocol.FindCoordinatorRequest{}, protocol.JoinGroupRequest{}, protocol.SyncGroupRequest{}, protocol.HeartbeatRequest{},
		protocol.LeaveGroupRequest{}, protocol.OffsetCommitRequest{}, protocol.OffsetFetchRequest{},
		protocol.ConsumerGroupHeartbeatRequest{}, protocol.InitProducerIdRequest{}, protocol.AddPartitionsToTxnRequest{},
		protocol.TxnOffsetCommitRequest{}, protocol.EndTxnRequest{}, protocol.WriteTxnMarkersRequest{},
	} {
		found := false
		for _, r := range routes {
			if r.kind == m.Kind() && r.request {
				found = true
			}
		}
		if !found {
			t.Errorf("no request route for %s", m.Kind())
		}
	}
}
