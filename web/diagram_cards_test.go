package web

import (
	"strconv"
	"testing"

	"github.com/loglab/loglab/engine/view"
)

// A card's text wraps rather than being cut: the estimate breaks at
// spaces, and inside a word longer than the line.
func TestWrappedLines(t *testing.T) {
	for _, tc := range []struct {
		text  string
		width float64
		want  int
	}{
		{"leads orders/0", 152, 1},
		{"leads orders/0, orders/1, orders/2", 152, 2},
		{"", 152, 1},
		{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 152, 3}, // 50 × 8.4 = 420 units
		{"是 orders/0 的 leader", 152, 2},
	} {
		if got := wrappedLines(tc.text, tc.width); got != tc.want {
			t.Errorf("wrappedLines(%q, %v) = %d, want %d", tc.text, tc.width, got, tc.want)
		}
	}
}

// leadingCluster: broker 1 leads orders/0, 20 partitions of
// __consumer_offsets and one of __transaction_state, as a cluster with a
// group and a transaction does.
func leadingCluster() view.Cluster {
	c := view.Cluster{Exists: true, Brokers: 1, Controllers: 1, BrokerNodes: []view.Broker{{ID: 1, Alive: true, Registered: true}}}
	c.Topics = append(c.Topics, view.Topic{Name: "orders", Partitions: []view.Partition{{Topic: "orders", Index: 0, Leader: 1, ISR: []int{1}}}})
	offsets := view.Topic{Name: "__consumer_offsets", Internal: true}
	for i := range 20 {
		offsets.Partitions = append(offsets.Partitions, view.Partition{Topic: offsets.Name, Index: i, Leader: 1, ISR: []int{1}})
	}
	c = append1(c, offsets)
	// __transaction_state is internal in Kafka, whether or not the view
	// marks it.
	return append1(c, view.Topic{Name: "__transaction_state", Partitions: []view.Partition{{Topic: "__transaction_state", Index: 3, Leader: 1, ISR: []int{1}}}})
}

func append1(c view.Cluster, t view.Topic) view.Cluster {
	c.Topics = append(c.Topics, t)
	return c
}

// The card names the user topics' partitions and counts the internal
// ones, and is tall enough for its lines.
func TestBrokerCardCountsInternalPartitions(t *testing.T) {
	d := layoutDiagram(leadingCluster())
	var b diagramNode
	for _, n := range d.Nodes {
		if n.Kind == "broker" {
			b = n
		}
	}
	w := b.LeadsWords()
	if want := "leads orders/0 + 21 internal partitions"; w.en != want {
		t.Errorf("leads line %q, want %q", w.en, want)
	}
	if want := "是 orders/0 及 21 个内部分区 的 leader"; w.zh != want {
		t.Errorf("leads line (zh) %q, want %q", w.zh, want)
	}
	if len(b.Leads) != 22 {
		t.Errorf("the tooltip's list has %d partitions, want all 22", len(b.Leads))
	}
	// Three lines in a 152-unit line ("leads orders/0 +", "20 internal",
	// "partitions"): the card grows by two.
	if want := brokerH + 2*lineH; b.H != want {
		t.Errorf("card height %v, want %v", b.H, want)
	}
}

// A taller broker row pushes the clients down: a card never covers one.
func TestTallBrokerCardsKeepClearOfTheClients(t *testing.T) {
	c := leadingCluster()
	for i := range 3 {
		name := "topic-with-a-long-name-" + strconv.Itoa(i)
		c = append1(c, view.Topic{Name: name, Partitions: []view.Partition{{Topic: name, Leader: 1, ISR: []int{1}}}})
	}
	c.ClientNodes = []view.Client{{Name: "p1", Kind: "producer"}}
	d := layoutDiagram(c)
	var broker, client rect
	for _, n := range d.Nodes {
		switch n.Kind {
		case "broker":
			broker = n.rect()
		case "producer":
			client = n.rect()
		}
	}
	if broker.H <= brokerH {
		t.Fatalf("the card did not grow for four topics' partitions: %v", broker.H)
	}
	if broker.Y+broker.H >= client.Y {
		t.Errorf("the broker card (bottom %v) reaches the client (top %v)", broker.Y+broker.H, client.Y)
	}
	if client.Y+client.H > d.Height {
		t.Errorf("the client (bottom %v) is outside the diagram (height %v)", client.Y+client.H, d.Height)
	}
}
