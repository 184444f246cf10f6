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

// max.poll.interval.ms through the real coordinator: the slow member's
// heartbeat thread sends LeaveGroup, the other member re-reads its
// uncommitted batch, and the slow member's commit then fails.
func TestPollTimeoutAgainstTheRealCoordinator(t *testing.T) {
	cfg := cluster.DefaultConfig()
	cfg.Seed = 11
	cfg.Broker.Groups.OffsetsTopicNumPartitions = 3
	c, err := cluster.New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.CreateTopic("payments", 2, 3, nil); err != nil {
		t.Fatal(err)
	}
	newMember := func(name string, maxPoll time.Duration) *client.Consumer {
		ccfg := client.DefaultConsumerConfig()
		ccfg.GroupID, ccfg.AutoOffsetReset, ccfg.MaxPollInterval = "g", "earliest", maxPoll
		co, err := c.CreateConsumer(name, ccfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := co.Subscribe([]string{"payments"}); err != nil {
			t.Fatal(err)
		}
		return co
	}
	slow, fast := newMember("slow", 10*time.Second), newMember("fast", 5*time.Minute)
	poll := func(cs ...*client.Consumer) func() bool {
		return func() bool {
			for _, co := range cs {
				if _, err := co.Poll(0); err != nil {
					t.Fatal(err)
				}
			}
			return false
		}
	}
	if _, err := c.RunUntil(poll(slow, fast), 20*time.Second); err != nil {
		t.Fatal(err)
	}
	if len(slow.Assignment()) != 1 {
		t.Fatalf("slow has %v", slow.Assignment())
	}
	tp := slow.Assignment()[0]
	p, _ := c.CreateProducer("p", client.DefaultProducerConfig())
	var msgs []cluster.Message
	for i := range 4 {
		msgs = append(msgs, cluster.Message{Value: []byte(fmt.Sprint(i)), Partition: tp.Partition})
	}
	if _, err := c.Produce(p, "payments", msgs); err != nil {
		t.Fatal(err)
	}
	batch, err := c.Poll(slow, 500, 5*time.Second)
	if err != nil || len(batch) != 4 {
		t.Fatalf("slow's batch: %d records, %v", len(batch), err)
	}
	var reread int
	if _, err := c.RunUntil(func() bool {
		recs, err := fast.Poll(0)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			if r.TP == tp {
				reread++
			}
		}
		return false
	}, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	events := strings.Join(c.DrainEvents(), "\n")
	if reread != 4 || !strings.Contains(events, "slow: member slow-") || len(fast.Assignment()) != 2 {
		t.Fatalf("fast re-read %d of slow's 4 records, owns %v\n%s", reread, fast.Assignment(), events)
	}
	h := slow.CommitSync(nil)
	if _, err := c.RunUntil(func() bool { return h.Done }, time.Minute); err != nil || !h.Done || h.Err == nil ||
		!strings.HasPrefix(h.Err.Error(), "CommitFailedException") {
		t.Fatalf("slow's commit after leaving: done %v err %v", h.Done, h.Err)
	}
}
