package cluster

import (
	"testing"
	"time"

	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/sim"
)

// A crashed consumer is a dead process: a metadata request it had in
// flight must not time out and be sent again, forever, from beyond the
// grave (the producer's Crash already forgot its own).
func TestCrashedConsumerSendsNoMoreMetadataRequests(t *testing.T) {
	c, err := New(DefaultConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.CreateTopic("t", 1, 3, nil); err != nil {
		t.Fatal(err)
	}
	c.Network().Drop(sim.DropRule{To: "c", Kind: "MetadataResponse", Remaining: -1})
	co, err := c.CreateConsumer("c", client.DefaultConsumerConfig(), []protocol.TopicPartition{{Topic: "t"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Poll(co, 0, 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if co.MetadataRequests() == 0 {
		t.Fatal("the consumer sent no metadata request: the test no longer has one in flight at the crash")
	}
	c.CrashConsumer(co)
	before := co.MetadataRequests()
	if err := c.Tick(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	if after := co.MetadataRequests(); after != before {
		t.Fatalf("the crashed consumer sent %d more metadata requests", after-before)
	}
}
