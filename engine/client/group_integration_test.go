package client_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/cluster"
)

// The group client against the real broker-side coordinator (not the
// fake of group_harness_test.go): members join through FindCoordinator,
// split the partitions, commit, and a late member takes its share from
// the committed offsets.
func TestGroupAgainstTheRealCoordinator(t *testing.T) {
	for _, proto := range []string{client.GroupProtocolClassic, client.GroupProtocolConsumer} {
		t.Run(proto, func(t *testing.T) {
			cfg := cluster.DefaultConfig()
			cfg.Seed = 7
			cfg.Broker.Groups.OffsetsTopicNumPartitions = 3
			c, err := cluster.New(cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			if err := c.CreateTopic("orders", 4, 3, nil); err != nil {
				t.Fatal(err)
			}
			p, err := c.CreateProducer("p", client.DefaultProducerConfig())
			if err != nil {
				t.Fatal(err)
			}
			var msgs []cluster.Message
			for i := range 8 {
				msgs = append(msgs, cluster.Message{Value: []byte(fmt.Sprint(i)), Partition: int32(i % 4)})
			}
			if _, err := c.Produce(p, "orders", msgs); err != nil {
				t.Fatal(err)
			}
			newMember := func(name string) *client.Consumer {
				ccfg := client.DefaultConsumerConfig()
				ccfg.GroupID, ccfg.GroupProtocol, ccfg.AutoOffsetReset = "g", proto, "earliest"
				co, err := c.CreateConsumer(name, ccfg, nil)
				if err != nil {
					t.Fatal(err)
				}
				if err := co.Subscribe([]string{"orders"}); err != nil {
					t.Fatal(err)
				}
				return co
			}
			read := map[string]int{}
			pollAll := func(cs ...*client.Consumer) func() bool {
				return func() bool {
					for _, co := range cs {
						recs, err := co.Poll(0)
						if err != nil {
							t.Fatalf("%s: %v", co.ID, err)
						}
						read[string(co.ID)] += len(recs)
					}
					return false
				}
			}
			c1, c2 := newMember("c1"), newMember("c2")
			if _, err := c.RunUntil(pollAll(c1, c2), 30*time.Second); err != nil {
				t.Fatal(err)
			}
			events := strings.Join(c.DrainEvents(), "\n")
			if len(c1.Assignment()) != 2 || len(c2.Assignment()) != 2 || read["c1"]+read["c2"] != 8 {
				t.Fatalf("c1 %v c2 %v read %v\n%s", c1.Assignment(), c2.Assignment(), read, events)
			}
			c3 := newMember("c3")
			if _, err := c.RunUntil(pollAll(c1, c2, c3), 30*time.Second); err != nil {
				t.Fatal(err)
			}
			events = strings.Join(c.DrainEvents(), "\n")
			n := len(c1.Assignment()) + len(c2.Assignment()) + len(c3.Assignment())
			if n != 4 || len(c3.Assignment()) == 0 || read["c3"] != 0 {
				t.Fatalf("after c3 joined: c1 %v c2 %v c3 %v, c3 read %d (everything was committed)\n%s",
					c1.Assignment(), c2.Assignment(), c3.Assignment(), read["c3"], events)
			}
			t.Log(events)
		})
	}
}
