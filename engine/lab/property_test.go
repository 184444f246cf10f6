package lab

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// vocabulary is every command of the lab language with typed holes for its
// arguments: %n a small number, %d a short duration, %s a name, %b a
// boolean, %k a message type, %o a node, %p a partition ("orders/1").
var vocabulary = []string{
	"cluster brokers=%n controllers=%n seed=%n",
	"cluster brokers=%n replica.lag.time.max.ms=%n broker.session.timeout.ms=%n",
	"topic create %s partitions=%n rf=%n",
	"topic create %s partitions=%n rf=%n retention.ms=%n segment.bytes=%n",
	"topic describe %s",
	"producer create %s acks=%n linger.ms=%n request.timeout.ms=%n delivery.timeout.ms=%n",
	"produce orders value=%s count=%n",
	"produce orders key=%s value=%s partition=%n interval=%d",
	"produce %s value=%s producer=%s",
	"produce orders tombstone=%b key=%s",
	"consumer create %s topics=%s auto.offset.reset=%s",
	"poll c max=%n timeout=%d",
	"poll %s timeout=%d",
	"seek c %p offset=%n",
	"broker crash %n power=%b",
	"broker restart %n",
	"controller crash %n",
	"controller restart %n",
	"net partition (%o) (%o,%o)",
	"net heal",
	"net drop from=%o to=%o type=%k count=%n",
	"net delay from=%o to=%o latency=%d",
	"tick %d",
	"step %n",
	"stabilize",
	"show log %p from=%n max=%n broker=%n",
	"show isr %p",
	"show segments %p broker=%n",
	"show batch %p offset=%n",
	"show lookup %p offset=%n",
	"show metadata from=%n",
	"show brokers",
	"show quorum",
	"show network",
	"check invariants always=%b",
	"help %s",
}

// goodValues are values of each hole's type a command may accept; short
// durations, so that a run of hundreds of commands stays quick.
var goodValues = map[byte][]string{
	'n': {"0", "1", "2", "3", "7"},
	'd': {"0s", "100ms", "1s", "5s", "30s", "250"},
	's': {"orders", "c", "p", "x", "all", "earliest", "none", "v{i}", "hello"},
	'b': {"true", "false"},
	'k': {"Fetch", "Produce", "FetchResponse"},
	'o': {"1", "2", "3", "ctl", "c", "p", "c1"},
	'p': {"orders/0", "orders/1", "orders/2"},
}

// badValues are every kind of mutation: empty, negative, huge,
// overflowing, bad units, wrong types, long strings, quoting mistakes.
var badValues = []string{
	"", "-1", "-5s", "-4758660480865194781", "99999999999999999999", "9223372036854775807", "-9223372036854775808",
	"2562047h47m16.854775807s", "876000h", "876000h1ms", "1000h", "200y", "1e9", "3.5", "0x10", "1_000", "+1", "NaN",
	"abc", "orders/99", "orders/-1", "(1)", "=", "é", "\"quoted value\"", "\"unterminated", "\t", "%", "true", "ctl",
	strings.Repeat("long", 1000),
}

// mutate fills a template's holes: half the lines are valid, the other
// half have one hole mutated or what a clumsy user adds (an unknown
// option, a stray word, an option given twice).
func mutate(r *rand.Rand, template string) string {
	holes := strings.Count(template, "%")
	bad := -1
	if r.IntN(2) == 0 {
		bad = r.IntN(holes + 1) // holes: the extra token
	}
	var b strings.Builder
	hole := 0
	for i := 0; i < len(template); i++ {
		if template[i] != '%' {
			b.WriteByte(template[i])
			continue
		}
		i++
		if hole == bad {
			b.WriteString(badValues[r.IntN(len(badValues))])
		} else {
			good := goodValues[template[i]]
			b.WriteString(good[r.IntN(len(good))])
		}
		hole++
	}
	if bad == holes {
		b.WriteString([]string{" bogus=1", " stray", " timeout=1s timeout=2s"}[r.IntN(3)])
	}
	return b.String()
}

// The property of issue 10: a command that fails as a misuse or a limit
// changes nothing (view, clock, consumer positions); only Kafka outcomes
// and successes may. Deterministic: a fixed seed picks the commands.
func TestErrorMeansIdenticalState(t *testing.T) {
	commands := 400
	if testing.Short() {
		commands = 100
	}
	r := rand.New(rand.NewPCG(10, 10))
	l := setupLab(t)
	mustRun(t, l, "consumer create c topics=orders auto.offset.reset=earliest", "producer create p acks=1")
	refusals := 0
	for i := range commands {
		line := mutate(r, vocabulary[r.IntN(len(vocabulary))])
		before := labState(t, l)
		_, err := l.Run(line)
		var ce *CommandError
		if err == nil && strings.HasPrefix(line, "cluster") {
			// A new cluster: give it what the other commands name again.
			mustRun(t, l, "topic create orders partitions=3 rf="+fmt.Sprint(l.View().Brokers), "consumer create c topics=orders auto.offset.reset=earliest", "producer create p acks=1")
		}
		if err == nil || (errors.As(err, &ce) && ce.Outcome) {
			continue
		}
		refusals++
		if after := labState(t, l); after != before {
			t.Fatalf("command %d %.300q failed (%.300v) but changed the lab:\nbefore %.2000s\nafter  %.2000s", i, line, err, before, after)
		}
	}
	if refusals < commands/5 || refusals > commands*4/5 {
		t.Errorf("%d of %d commands were refused: the mix is too tame, or too wild, to test anything", refusals, commands)
	}
}

// FuzzLabCommand is the same property for arbitrary lines, seeded with
// issue 10's reproductions (`go test` runs only the seeds; `go test
// -fuzz FuzzLabCommand` explores).
func FuzzLabCommand(f *testing.F) {
	for _, seed := range []string{
		"tick 2562047h47m16.854775807s", "tick -4758660480865194781", "tick 1000h", "poll c timeout=1000h",
		"produce orders value=" + strings.Repeat("v", 3900) + " count=20000", "produce orders value=v count=10001",
		"produce orders value=v count=3 interval=438000h", "step 10001", "net delay from=1 to=2 latency=900000h",
		"seek c orders/0 offset=-1", "consumer create c topics=orders", "show log orders/0 max=99999999999",
		"", "\x00", "tick 1s",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		l := setupLab(t)
		mustRun(t, l, "consumer create c topics=orders auto.offset.reset=earliest")
		before := labState(t, l)
		_, err := l.Run(line)
		var ce *CommandError
		if err == nil || (errors.As(err, &ce) && ce.Outcome) {
			return
		}
		if after := labState(t, l); after != before {
			t.Fatalf("%.300q failed (%.300v) but changed the lab", line, err)
		}
	})
}
