package cluster

import (
	"testing"

	"github.com/loglab/loglab/engine/client"
	"github.com/loglab/loglab/engine/protocol"
)

func rec(off int64) client.ConsumedRecord {
	return client.ConsumedRecord{TP: protocol.TopicPartition{Topic: "orders"}, Offset: off}
}

// A poll loop processes a batch before it polls again; two members of one
// group processing the same record is a duplicate, two groups are not.
func TestLedgerCountsReprocessingWithinAScope(t *testing.T) {
	var l ledger
	if done := l.deliver("group g", "c1", []client.ConsumedRecord{rec(0), rec(1)}); len(done) != 0 {
		t.Fatalf("the first poll processed %v; nothing was in hand", done)
	}
	done := l.deliver("group g", "c1", nil)
	if len(done) != 2 || done[1].Offset != 1 || done[1].Times != 1 {
		t.Fatalf("polling again processed %v, want offsets 0 and 1 once", done)
	}
	again := l.process("group g", "c2", []client.ConsumedRecord{rec(1)})
	if again[0].Times != 2 || again[0].First != "c1" || len(l.twice) != 1 {
		t.Fatalf("c2 processing offset 1 gave %+v, twice=%v; want the 2nd time, first by c1", again[0], l.twice)
	}
	if other := l.process("group h", "c3", []client.ConsumedRecord{rec(1)}); other[0].Times != 1 {
		t.Fatalf("another group's processing counted as a duplicate: %+v", other[0])
	}
	if got := again[0].String(); got != "c2 processed orders/0 offset 1 AGAIN (2nd time; first by c1)" {
		t.Fatalf("String() = %q", got)
	}
}

func TestOrdinal(t *testing.T) {
	for n, want := range map[int]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th", 21: "21st", 22: "22nd", 111: "111th"} {
		if got := ordinal(n); got != want {
			t.Errorf("ordinal(%d) = %s, want %s", n, got, want)
		}
	}
}
