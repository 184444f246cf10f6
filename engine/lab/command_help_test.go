package lab

import (
	"slices"
	"strings"
	"testing"
)

// The console's list is `help`'s list: the same usages and summaries, in
// the same order, so completion and inline help teach what the engine runs.
func TestCommandsMatchHelp(t *testing.T) {
	out, err := New().Run("help")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i, c := range Commands() {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(c.Usage + "\n    " + c.Summary)
		if !strings.HasPrefix(c.Usage, c.Name) {
			t.Errorf("command %q: usage %q does not start with its name", c.Name, c.Usage)
		}
	}
	if b.String() != out {
		t.Errorf("Commands() differs from help\n--- help\n%s\n--- Commands()\n%s", out, b.String())
	}
	for _, c := range Commands() {
		if one, err := New().Run("help " + c.Name); err != nil || !strings.HasPrefix(one, c.Usage+"\n") {
			t.Errorf("help %s = %q, %v; want it to start with %q", c.Name, one, err, c.Usage)
		}
	}
}

// Options come from the usage line: lower-case NAME=..., and --flags;
// capitals are placeholders, not names.
func TestUsageOptions(t *testing.T) {
	for _, tc := range []struct {
		usage string
		want  []string
	}{
		{"produce TOPIC value=V|tombstone=true [key=K] [partition=N] [count=N] [interval=0s] [producer=NAME]",
			[]string{"value", "tombstone", "key", "partition", "count", "interval", "producer"}},
		{"topic create NAME [partitions=1] [rf=1] [CONFIG=VALUE...]", []string{"partitions", "rf"}},
		{"seek CONSUMER TOPIC/PARTITION offset=N|to-time=TIMESTAMP", []string{"offset", "to-time"}},
		{"group reset-offsets GROUP --to-earliest|--to-offset N [--execute]", []string{"--to-earliest", "--to-offset", "--execute"}},
		{"cluster [replica.lag.time.max.ms=30000]", []string{"replica.lag.time.max.ms"}},
		{"tick DURATION", nil},
	} {
		if got := usageOptions(tc.usage); !slices.Equal(got, tc.want) {
			t.Errorf("usageOptions(%q) = %q, want %q", tc.usage, got, tc.want)
		}
	}
}
