package web

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/lab"
	"github.com/loglab/loglab/engine/view"
)

func labView(t *testing.T, script string) view.Cluster {
	t.Helper()
	l := lab.New()
	t.Cleanup(func() { l.Close() })
	for _, line := range strings.Split(script, "\n") {
		if _, err := l.Run(line); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
	return l.View()
}

// The metrics and charts panels are fragments of a real cluster's view:
// the metric keeps Kafka's name and MBean, the delta the last command
// caused, and the charts have lines once records were produced.
func TestMetricsAndChartsFragments(t *testing.T) {
	c := labView(t, "cluster brokers=3 seed=7 replica.lag.time.max.ms=4000\ntopic create t rf=3\nproducer create p acks=1\n"+
		"produce t value=v{i} count=20 producer=p\nbroker crash 3\nproduce t value=w producer=p\ntick 7s")
	fs, err := RenderFragments(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	html := map[string]string{}
	for _, f := range fs {
		html[f.Key] = f.HTML
	}
	m, ch := html["metrics"], html["charts"]
	if m == "" || ch == "" {
		t.Fatalf("fragments metrics/charts missing: have %d fragments", len(fs))
	}
	for _, want := range []string{
		`data-metric="UnderReplicatedPartitions" data-client="" data-value="1" data-delta="+1"`,
		`title="kafka.server:type=ReplicaManager,name=UnderReplicatedPartitions"`,
		`data-metric="IsrShrinksPerSec" data-client="" data-value="1" data-delta="+1"`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics panel lacks %s", want)
		}
	}
	// The HW line of t/0 has one point per sample, rising to 21 records.
	hw := regexp.MustCompile(`data-chart="hw-leo/t/0"[\s\S]*?<polyline class="s0" data-series="HW" points="([^"]+)"`).FindStringSubmatch(ch)
	if hw == nil || len(strings.Fields(hw[1])) < 3 {
		t.Fatalf("no HW polyline with points in the charts: %.300s", ch)
	}
	if !strings.Contains(ch, `viewBox="0 0 320.0 120.0"`) {
		t.Errorf("the chart SVG does not scale by viewBox")
	}
}

// The same commands draw the same charts: they are sampled on virtual
// time, so a replay (rewind) reproduces them.
func TestChartsReplayIdentically(t *testing.T) {
	script := "cluster brokers=3 seed=3\ntopic create t partitions=2 rf=3\nproducer create p acks=all\nproduce t value=v{i} count=200 producer=p\n" +
		"consumer create c assign=t/0,t/1 auto.offset.reset=earliest\npoll c timeout=2s\nbroker crash 2\ntick 40s"
	a, b := labView(t, script), labView(t, script)
	ra, _ := RenderString(context.Background(), ChartsPanel(a))
	rb, _ := RenderString(context.Background(), ChartsPanel(b))
	if ra != rb || ra == "" {
		t.Errorf("two runs of the same commands drew different charts")
	}
	for _, key := range []string{"throughput", "lag", "isr", "hw-leo/t/0", "hw-leo/t/1"} {
		if !strings.Contains(ra, `data-chart="`+key+`"`) {
			t.Errorf("no %s chart", key)
		}
	}
}

func TestNiceCeil(t *testing.T) {
	for _, c := range []struct{ in, want float64 }{{0, 1}, {3, 3}, {10, 10}, {21, 25}, {200, 200}, {2001, 2500}, {9000, 10000}} {
		if got := niceCeil(c.in); got != c.want {
			t.Errorf("niceCeil(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}
