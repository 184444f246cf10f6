package vdump

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/loglab/loglab/engine/lab"
)

func TestDump(t *testing.T) {
	l := lab.New()
	for _, line := range []string{"cluster brokers=3 controllers=3 seed=42", "topic create orders rf=3 min.insync.replicas=2", "producer create p1 acks=1", "produce orders key=a value=1 producer=p1", "consumer create c1 topics=orders", "poll c1", "step 3"} {
		out, err := l.Run(line)
		fmt.Println(">", line, "\n", out, err)
	}
	v := l.View()
	v.Topics = nil
	b, _ := json.MarshalIndent(v, "", " ")
	fmt.Println(string(b))
}
