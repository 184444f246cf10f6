package lessons

import "testing"

// TestReplicationChecks runs the replication and retention checks on labs
// driven into known states, one table per state.
func TestReplicationChecks(t *testing.T) {
	type row struct {
		check string
		args  []string
		want  string
	}
	expect := func(t *testing.T, p *Player, when string, rows []row) {
		t.Helper()
		for _, c := range rows {
			if got, err := p.Evaluate(c.check, c.args); err != nil || got != c.want {
				t.Errorf("%s: %s %v = %q (err %v), want %q", when, c.check, c.args, got, err, c.want)
			}
		}
	}
	run := func(t *testing.T, p *Player, cmds ...string) {
		t.Helper()
		for _, c := range cmds {
			if out := p.Run(c); p.lastErr != nil {
				t.Fatalf("%s: %s", c, out)
			}
		}
	}

	t.Run("failover", func(t *testing.T) {
		p := NewPlayer()
		defer p.Close()
		run(t, p, "cluster brokers=3 seed=7", "topic create orders rf=3 min.insync.replicas=2",
			"producer create fast acks=1", "consumer create reader topics=orders auto.offset.reset=earliest",
			"produce orders key=a value=first producer=fast", "poll reader",
			"net drop from=2 to=3 type=FetchResponse count=0", "net drop from=2 to=1 type=FetchResponse count=0",
			"produce orders key=a value=only-on-2 producer=fast")
		expect(t, p, "before the crash", []row{
			{"isr", []string{"orders/0"}, "2,3,1"},
			{"epoch", []string{"orders/0"}, "0"},
			{"leo", []string{"orders/0", "2"}, "2"}, // the leader has the acks=1 record
			{"leo", []string{"orders/0", "3"}, "1"}, // its followers do not
			{"log-start", []string{"orders/0"}, "0"},
			{"value", []string{"orders/0", "2", "1"}, "only-on-2"},
			{"value", []string{"orders/0", "3", "1"}, "none"}, // beyond its log end
			{"value", []string{"orders/0", "3", "0"}, "first"},
			{"position", []string{"reader", "orders/0"}, "1"},
			{"records-skipped", []string{"reader", "orders/0"}, "0"},
		})
		run(t, p, "broker crash 2", "net heal", "tick 10s", "produce orders key=a value=epoch-1 producer=fast", "broker restart 2", "tick 3s")
		expect(t, p, "after the failover", []row{
			{"epoch", []string{"orders/0"}, "1"},
			{"isr", []string{"orders/0"}, "1,2,3"},
			{"leo", []string{"orders/0", "2"}, "2"},
			// Broker 2 truncated offset 1 of epoch 0 and fetched the new leader's.
			{"value", []string{"orders/0", "2", "1"}, "epoch-1"},
		})
		for _, bad := range [][]string{{"isr"}, {"epoch", "nope/0"}, {"leo", "orders/0"}, {"leo", "orders/0", "9"},
			{"value", "orders/0", "2"}, {"value", "orders/0", "2", "x"}, {"position", "nobody", "orders/0"},
			{"position", "reader", "other/0"}, {"records-skipped", "reader"}} {
			if v, err := p.Evaluate(bad[0], bad[1:]); err == nil {
				t.Errorf("%v: no error (value %q)", bad, v)
			}
		}
		run(t, p, "broker crash 3")
		if v, err := p.Evaluate("value", []string{"orders/0", "3", "0"}); err == nil {
			t.Errorf("value on a crashed broker: no error (value %q)", v)
		}
	})

	t.Run("retention", func(t *testing.T) {
		p := NewPlayer()
		defer p.Close()
		run(t, p, "cluster brokers=1 seed=21", "topic create events segment.bytes=200 retention.ms=60000",
			"producer create one batch.size=0 linger.ms=0", "produce events key=k value=old-{i} count=6 producer=one",
			"tick 5m", "produce events key=k value=new-{i} count=3 producer=one",
			"consumer create skipper topics=events", "consumer create rewinder topics=events auto.offset.reset=earliest",
			"seek skipper events/0 offset=2", "seek rewinder events/0 offset=2")
		expect(t, p, "before polling", []row{
			{"log-start", []string{"events/0"}, "6"},
			{"position", []string{"skipper", "events/0"}, "2"},
			{"value", []string{"events/0", "1", "2"}, "none"}, // deleted by retention
			{"value", []string{"events/0", "1", "6"}, "new-0"},
		})
		run(t, p, "poll skipper", "poll rewinder")
		expect(t, p, "after the resets", []row{
			{"position", []string{"skipper", "events/0"}, "9"},
			{"records-skipped", []string{"skipper", "events/0"}, "3"}, // new-0..2, still in the log
			{"records-skipped", []string{"rewinder", "events/0"}, "0"},
		})
	})
}

// TestLostAckedCountsRecordsOnce: the checker reports a lost record again
// for each later leader that lacks it; lost-acked counts records, not
// reports, or a second failover would double the losses a lesson shows.
func TestLostAckedCountsRecordsOnce(t *testing.T) {
	p := NewPlayer()
	defer p.Close()
	for _, c := range []string{"cluster brokers=3 seed=7", "topic create orders rf=3 min.insync.replicas=2",
		"producer create fast acks=1", "produce orders key=a value=replicated producer=fast", "tick 1s",
		"net drop from=2 to=3 type=FetchResponse count=0", "net drop from=2 to=1 type=FetchResponse count=0",
		"produce orders key=a value=only-on-2-{i} count=2 producer=fast", "broker crash 2", "net heal", "tick 10s",
		"produce orders key=a value=from-leader-3 producer=fast", "broker restart 2", "tick 3s",
		"broker crash 3", "tick 10s"} {
		p.Run(c)
	}
	if got, _ := p.Evaluate("leader", []string{"orders/0"}); got != "2" {
		t.Fatalf("leader after the second failover = %s, want 2", got)
	}
	for _, c := range []struct{ check, want string }{{"lost-acked", "2"}, {"surviving-acked", "2"}, {"lost-acked", "2"}} {
		if got, err := p.Evaluate(c.check, []string{"orders/0"}); err != nil || got != c.want {
			t.Errorf("%s orders/0 = %q (err %v), want %q", c.check, got, err, c.want)
		}
	}
}
