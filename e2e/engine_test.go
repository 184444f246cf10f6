package e2e

import (
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/lab"
	"github.com/loglab/loglab/engine/view"
)

// engineView runs the browser lab's starter script and then lines in an
// in-process lab and returns its view: the facts a page driven with the
// same commands must show, taken from the engine rather than written down
// by hand.
func engineView(t *testing.T, lines ...string) view.Cluster {
	t.Helper()
	l := lab.New()
	t.Cleanup(func() { l.Close() })
	for _, line := range append(strings.Split(lab.StarterScript, "\n"), lines...) {
		if out, err := l.Run(line); err != nil {
			t.Fatalf("engine: %s: %v\n%s", line, err, out)
		}
	}
	return l.View()
}

func partitionOf(t *testing.T, v view.Cluster, name string) view.Partition {
	t.Helper()
	for _, tp := range v.Topics {
		for _, p := range tp.Partitions {
			if p.Name() == name {
				return p
			}
		}
	}
	t.Fatalf("engine has no partition %s", name)
	return view.Partition{}
}

func fieldValue(t *testing.T, b *view.BatchDetail, name string) string {
	t.Helper()
	for _, f := range b.Fields {
		if f.Name == name {
			return f.Value
		}
	}
	t.Fatalf("batch has no field %s", name)
	return ""
}
