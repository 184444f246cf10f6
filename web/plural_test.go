package web

import (
	"context"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/view"
)

// TestOneBrokerIsSingular: a one-broker cluster reads "1 broker" in the
// summary line and the network panel's heading, never "1 brokers"
// (Chinese has no plural: "1 个 broker" either way).
func TestOneBrokerIsSingular(t *testing.T) {
	c := view.Cluster{Exists: true, Brokers: 1, Controllers: 1, Elapsed: "0s",
		BrokerNodes: []view.Broker{{ID: 1, Node: "b1", Alive: true, Registered: true}},
		Quorum:      []view.Controller{{ID: 1, Up: true, Role: "leader"}}, ActiveController: 1, ControllerNode: "ctl"}
	html, err := RenderString(context.Background(), ClusterView(c))
	if err != nil {
		t.Fatal(err)
	}
	// ("1 of 1 controllers up", the quorum's heading, counts out of a
	// total and keeps the plural.)
	for _, bad := range []string{">1 brokers<", ">1 controllers<", "1 brokers ·", "0 recent message "} {
		if strings.Contains(html, bad) {
			t.Errorf("the view says %q", bad)
		}
	}
	for _, want := range []string{"1 broker<", "1 controller<", "1 broker ·", "0 recent messages", "1 个 broker"} {
		if !strings.Contains(html, want) {
			t.Errorf("the view lacks %q", want)
		}
	}
}
