package lessons

import (
	"errors"
	"os"
	"sort"
	"strings"
	"testing"
)

// TestChecks runs each named check on a lab driven into a known state: the
// replication scenario of engine/lab/testdata/replication.txt.
func TestChecks(t *testing.T) {
	p := NewPlayer()
	defer p.Close()
	run := func(cmds ...string) {
		for _, c := range cmds {
			p.Run(c)
		}
	}
	run("cluster brokers=3 seed=7", "topic create orders rf=3 min.insync.replicas=2",
		"producer create fast acks=1", "produce orders key=a value=replicated producer=fast", "tick 1s",
		"net drop from=2 type=FetchResponse count=0", "produce orders key=a value=acknowledged-then-lost producer=fast")
	before := []struct {
		check string
		args  []string
		want  string
	}{
		{"leader", []string{"orders/0"}, "2"},
		{"hw", []string{"orders/0", "2"}, "1"},    // acknowledged, not replicated
		{"lost-acked", []string{"orders/0"}, "0"}, // nothing lost while broker 2 leads
		{"surviving-acked", []string{"orders/0"}, "2"},
		{"last-error", nil, "none"},
	}
	for _, c := range before {
		if got, err := p.Evaluate(c.check, c.args); err != nil || got != c.want {
			t.Errorf("before the crash: %s %v = %q (err %v), want %q", c.check, c.args, got, err, c.want)
		}
	}
	run("broker crash 2", "net heal", "tick 10s")
	after := []struct {
		check string
		args  []string
		want  string
	}{
		{"leader", []string{"orders/0"}, "3"},
		{"lost-acked", []string{"orders/0"}, "1"},
		{"surviving-acked", []string{"orders/0"}, "1"},
	}
	for _, c := range after {
		if got, err := p.Evaluate(c.check, c.args); err != nil || got != c.want {
			t.Errorf("after the crash: %s %v = %q (err %v), want %q", c.check, c.args, got, err, c.want)
		}
	}
	for _, bad := range [][]string{{"leader", "nope/0"}, {"leader", "orders"}, {"hw", "orders/0", "9"}, {"lost-acked"}} {
		if _, err := p.Evaluate(bad[0], bad[1:]); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

func TestLastError(t *testing.T) {
	cases := []struct {
		err  error
		want string
	}{
		{nil, "none"},
		{errors.New("produce: 1 record to t/0 failed: NOT_ENOUGH_REPLICAS: the ISR is below min.insync.replicas"), "NOT_ENOUGH_REPLICAS"},
		// A retrying producer ends with a TimeoutException; Kafka's code is in its events.
		{errors.New("produce: failed after 6 attempts: org.apache.kafka.common.errors.TimeoutException: Expiring 1 record(s)\n  [10.275s] safe: produce to orders/0 failed with NOT_ENOUGH_REPLICAS: retrying"), "NOT_ENOUGH_REPLICAS"},
		{errors.New("there is no cluster yet"), "other"},
	}
	for _, c := range cases {
		if got, _ := lastError(State{LastErr: c.err}, nil); got != c.want {
			t.Errorf("last-error of %v = %q, want %q", c.err, got, c.want)
		}
	}
}

// TestCheckDocsCoverRegistry keeps README's list and the registry in step.
func TestCheckDocsCoverRegistry(t *testing.T) {
	var documented []string
	for name := range CheckDocs {
		documented = append(documented, name)
	}
	sort.Strings(documented)
	if got, want := documented, CheckNames(); len(got) != len(want) {
		t.Fatalf("documented %v, registry %v", got, want)
	}
	for i, name := range CheckNames() {
		if documented[i] != name {
			t.Fatalf("documented %v, registry %v", documented, CheckNames())
		}
	}
}

// TestReadmeListsChecks: trainers learn the check names from README.md.
func TestReadmeListsChecks(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range CheckNames() {
		if !strings.Contains(string(readme), "| `"+name) {
			t.Errorf("README.md does not list the check %q", name)
		}
	}
}
