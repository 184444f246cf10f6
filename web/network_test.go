package web

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/view"
)

// failover is a three-broker cluster just after broker 2, the leader of
// orders/0, crashed and was replaced by broker 3 at leader epoch 1; an
// acks=1 record went with it, and the checker said so.
func failover() view.Cluster {
	return view.Cluster{
		Exists: true, Brokers: 3, Controllers: 3, Seed: 7, Elapsed: "11.2s", MetadataOffset: 10,
		ControllerNode: "ctl", Network: "network healthy",
		BrokerNodes: []view.Broker{
			{ID: 1, Node: "b1", Alive: true, Registered: true, Epoch: 1, MetadataOffset: 10},
			{ID: 2, Node: "b2", Alive: false, Fenced: true, Epoch: 2, MetadataOffset: 8},
			{ID: 3, Node: "b3", Alive: true, Registered: true, Epoch: 3, MetadataOffset: 10},
		},
		Clients:     []string{"fast"},
		ClientNodes: []view.Client{{Name: "fast", Kind: "producer"}},
		Messages: []view.Message{
			{ID: 9, From: "b1", To: "b3", Kind: "Fetch", SentAt: "11.2s", DeliverAt: "11.201s", InFlight: true},
			{ID: 8, From: "b3", To: "b1", Kind: "FetchResponse", SentAt: "11.1s", DeliverAt: "11.101s", Fate: "delivered"},
			{ID: 7, From: "ctl", To: "b2", Kind: "BrokerHeartbeatResponse", SentAt: "2s", DeliverAt: "2.001s", Fate: "lost"},
			{ID: 6, From: "b2", To: "b1", Kind: "FetchResponse", SentAt: "1.5s", DeliverAt: "1.501s", Fate: "dropped"},
			{ID: 5, From: "b1", To: "b3", Kind: "Fetch", SentAt: "1.4s", DeliverAt: "1.401s", Fate: "delivered"},
			{ID: 4, From: "fast", To: "b2", Kind: "Produce", SentAt: "1.2s", DeliverAt: "1.201s", Fate: "delivered"},
		},
		Violations: []string{`[11.2s] acks=1-loss: orders/0 offset 1 ("gone", acknowledged at 1.2s) is gone from leader 3`},
		Checks:     []view.Violation{{At: "11.2s", Invariant: "acks=1-loss", Detail: `orders/0 offset 1 ("gone", acknowledged at 1.2s) is gone from leader 3`}},
		Topics: []view.Topic{{Name: "orders", ReplicationFactor: 3, Partitions: []view.Partition{{
			Topic: "orders", Index: 0, Leader: 3, LeaderEpoch: 1, HighWatermark: 1, LogEndOffset: 2, ISR: []int{3, 1}, ShownBroker: 3,
			Replicas: []view.Replica{
				{Broker: 2},
				{Broker: 3, Alive: true, Opened: true, Leader: true, InISR: true, LEO: 2, HW: 1, Epoch: 1},
				{Broker: 1, Alive: true, Opened: true, InISR: true, LEO: 1, HW: 1, Epoch: 1},
			},
			Records: []view.Record{
				{Offset: 0, Key: "a", Value: "kept", Committed: true, Acked: true},
				{Offset: 1, Key: "a", Value: "new"},
			},
			Lost: []view.Record{{Offset: 1, Value: "gone", KeyIsNull: true, Acked: true}},
		}}}},
	}
}

func render(t *testing.T, c view.Cluster) string {
	t.Helper()
	html, err := RenderString(context.Background(), ClusterView(c))
	if err != nil {
		t.Fatal(err)
	}
	return html
}

// element returns the first start tag matching re, for asserting on its
// attributes without depending on their order.
func element(t *testing.T, html, re string) string {
	t.Helper()
	m := regexp.MustCompile(re).FindString(html)
	if m == "" {
		t.Fatalf("no element matches %s in:\n%s", re, html)
	}
	return m
}

func TestControlsAreLabCommands(t *testing.T) {
	html := render(t, failover())
	for _, cmd := range []string{"step", "tick 100ms", "tick 1s", "tick 10s", "stabilize", "net heal", "check invariants"} {
		if !strings.Contains(html, `data-command="`+cmd+`"`) {
			t.Errorf("no control runs %q", cmd)
		}
	}
	if !strings.Contains(html, `data-network="network healthy"`) {
		t.Error("the controls do not say the network is healthy")
	}
}

func TestBrokerNodesShowStateAndFaultButtons(t *testing.T) {
	html := render(t, failover())
	b1 := element(t, html, `<div class="node broker"[^>]*data-broker="1"[^>]*>`)
	for _, want := range []string{`data-state="running"`, `data-fenced="false"`, `data-epoch="1"`} {
		if !strings.Contains(b1, want) {
			t.Errorf("broker 1 lacks %s: %s", want, b1)
		}
	}
	b2 := element(t, html, `<div class="node broker down fenced"[^>]*data-broker="2"[^>]*>`)
	for _, want := range []string{`data-state="down"`, `data-fenced="true"`, `data-epoch="2"`} {
		if !strings.Contains(b2, want) {
			t.Errorf("broker 2 lacks %s: %s", want, b2)
		}
	}
	for _, want := range []string{
		`data-command="broker crash 1"`, `data-command="broker restart 2"`, `data-command="broker crash 3"`,
		`data-node="ctl"`, `data-node="fast"`, "KRaft quorum of 3", "leads orders/0",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("diagram lacks %q", want)
		}
	}
	for _, unwanted := range []string{`data-command="broker crash 2"`, `data-command="broker restart 1"`} {
		if strings.Contains(html, unwanted) {
			t.Errorf("diagram offers %q", unwanted)
		}
	}
}

func TestMessagesAreArrowsWithTheirFate(t *testing.T) {
	html := render(t, failover())
	for _, want := range []string{
		// b1 -> b3 carried two Fetches: the one in flight is the one drawn.
		`data-from="b1" data-to="b3" data-kind="Fetch" data-fate="in-flight"`,
		`data-from="b3" data-to="b1" data-kind="FetchResponse" data-fate="delivered"`,
		`data-from="b2" data-to="b1" data-kind="FetchResponse" data-fate="dropped"`,
		`data-from="ctl" data-to="b2" data-kind="BrokerHeartbeatResponse" data-fate="lost"`,
		`data-from="fast" data-to="b2" data-kind="Produce" data-fate="delivered"`,
		`marker-end="url(#arrow-in-flight)"`, `class="packet"`, `class="drop-mark"`,
		"in flight, arrives 11.201s", "lost (an end is down)",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("diagram lacks %q", want)
		}
	}
	if n := strings.Count(html, `data-from="b1" data-to="b3"`); n != 1 {
		t.Errorf("b1 -> b3 drawn %d times, want once", n)
	}
	// Labels stay inside the picture.
	for _, m := range regexp.MustCompile(`<text class="label[^"]*" x="(-?[\d.]+)" y="(-?[\d.]+)"`).FindAllStringSubmatch(html, -1) {
		if strings.HasPrefix(m[1], "-") || strings.HasPrefix(m[2], "-") || m[1] == "0" || m[2] == "0" {
			t.Errorf("label outside the picture: %s", m[0])
		}
	}
}

func TestPartitionShowsLeaderISRAndReplicaMarks(t *testing.T) {
	html := render(t, failover())
	part := element(t, html, `<div class="partition"[^>]*>`)
	for _, want := range []string{`data-partition="orders/0"`, `data-leader="3"`, `data-leader-epoch="1"`, `data-hw="1"`} {
		if !strings.Contains(part, want) {
			t.Errorf("partition lacks %s: %s", want, part)
		}
	}
	leader := element(t, html, `<div class="replica leader"[^>]*>`)
	for _, want := range []string{`data-replica="3"`, `data-isr="true"`, `data-leo="2"`, `data-hw="1"`} {
		if !strings.Contains(leader, want) {
			t.Errorf("leader row lacks %s: %s", want, leader)
		}
	}
	dead := element(t, html, `<div class="replica down out-of-isr"[^>]*>`)
	if !strings.Contains(dead, `data-replica="2"`) || !strings.Contains(dead, `data-alive="false"`) {
		t.Errorf("dead replica row: %s", dead)
	}
	for _, want := range []string{
		"leader · epoch 1", "ISR 3,1", "not in ISR",
		// The leader's log runs to 2, the scale too: HW at 50%, LEO at 100%.
		`class="mark hw" style="left:50.00%;"`, `class="mark leo" style="left:100.00%;"`,
		// Broker 1 lags: its log end is at 50% as well.
		`class="rep-fill committed" style="left:0.00%;width:50.00%;"`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("partition lacks %q", want)
		}
	}
}

func TestRecordsShowCommittedAckedAndLost(t *testing.T) {
	html := render(t, failover())
	r0 := element(t, html, `<li class="record[^"]*"[^>]*data-offset="0"[^>]*>`)
	r1 := element(t, html, `<li class="record[^"]*"[^>]*data-offset="1"[^>]*>`)
	if !strings.Contains(r0, `data-committed="true"`) || !strings.Contains(r0, `data-acked="true"`) || strings.Contains(r0, "uncommitted") {
		t.Errorf("offset 0: %s", r0)
	}
	if !strings.Contains(r1, `data-committed="false"`) || !strings.Contains(r1, "uncommitted") || !strings.Contains(r1, `data-acked="false"`) {
		t.Errorf("offset 1: %s", r1)
	}
	// The high watermark divides them.
	if !regexp.MustCompile(`(?s)data-offset="0".*class="hw-divider".*data-offset="1"`).MatchString(html) {
		t.Error("no high watermark between offsets 0 and 1")
	}
	if !strings.Contains(html, `data-lost-offset="1"`) || !strings.Contains(html, "acknowledged, then lost") {
		t.Error("the lost acknowledged record is not shown")
	}
	// Clicking a record still opens its batch.
	if !strings.Contains(r1, `data-command="show batch orders/0 offset=1"`) {
		t.Errorf("offset 1 opens no batch: %s", r1)
	}
}

func TestViolationsPanelFlagsLostRecords(t *testing.T) {
	html := render(t, failover())
	for _, want := range []string{`id="violations"`, `data-invariant="acks=1-loss"`, "acknowledged record lost", "is gone from leader 3"} {
		if !strings.Contains(html, want) {
			t.Errorf("violations panel lacks %q", want)
		}
	}
	c := failover()
	c.Violations, c.Checks = nil, nil
	if html := render(t, c); strings.Contains(html, `id="violations"`) {
		t.Error("a violations panel without violations")
	}
}

func TestNetworkPartitionSidesAndFaults(t *testing.T) {
	c := failover()
	c.Network = "partitioned (b1) (b2,b3)"
	c.Cut = []view.Link{{A: "b1", B: "b2"}, {A: "b1", B: "b3"}}
	html := render(t, c)
	if !strings.Contains(html, `class="net-state faulty"`) || !strings.Contains(html, "partitioned (b1) (b2,b3)") {
		t.Error("the controls do not show the partition")
	}
	got := map[string]string{}
	for _, card := range strings.Split(html, `data-node="`)[1:] {
		id := card[:strings.Index(card, `"`)]
		if m := regexp.MustCompile(`data-side="(\w)"`).FindStringSubmatch(card); m != nil {
			got[id] = m[1]
		}
	}
	if got["b1"] != "A" || got["b2"] != "B" || got["b3"] != "B" || got["ctl"] != "" || got["fast"] != "" {
		t.Errorf("sides = %v, want b1 on A, b2 and b3 on B, ctl and fast on none", got)
	}
}

func TestLayoutKeepsCardsApart(t *testing.T) {
	for _, n := range []int{1, 3, 5, 7} {
		c := failover()
		c.BrokerNodes = nil
		for i := 1; i <= n; i++ {
			c.BrokerNodes = append(c.BrokerNodes, view.Broker{ID: i, Alive: true, Registered: true})
		}
		c.ClientNodes = []view.Client{{Name: "p1", Kind: "producer"}, {Name: "p2", Kind: "producer"}, {Name: "c1", Kind: "consumer"}, {Name: "c2", Kind: "consumer"}}
		d := layoutDiagram(c)
		for i, a := range d.Nodes {
			if a.left() < 0 || a.top() < 0 || a.left()+a.W > d.Width || a.top()+a.H > d.Height {
				t.Errorf("%d brokers: %s sticks out of the %vx%v picture", n, a.ID, d.Width, d.Height)
			}
			for _, b := range d.Nodes[i+1:] {
				if a.rect().grow(8).overlap(b.rect()) > 0 {
					t.Errorf("%d brokers: %s and %s overlap", n, a.ID, b.ID)
				}
			}
		}
		// The picture stays narrow enough that its text is legible.
		if d.Width > 1400 {
			t.Errorf("%d brokers: %v units wide", n, d.Width)
		}
	}
}

// A message naming a node the view does not list still gets drawn.
func TestUnknownNodesAreDrawn(t *testing.T) {
	c := failover()
	c.Messages = append(c.Messages, view.Message{From: "ghost", To: "b1", Kind: "Metadata", Fate: "delivered"})
	html := render(t, c)
	if !strings.Contains(html, `data-node="ghost"`) || !strings.Contains(html, `data-from="ghost" data-to="b1"`) {
		t.Error("the unknown node or its message is missing")
	}
}

// restartLimbo is a cluster right after `broker crash 2` and `broker
// restart 2`: broker 2 runs again but has not registered, so the metadata
// still names it leader of orders/0 (epoch 2 of its previous run) and it
// has not opened its replica; broker 3's log is the one shown.
func restartLimbo() view.Cluster {
	c := failover()
	c.Violations, c.Checks = nil, nil
	c.BrokerNodes[1] = view.Broker{ID: 2, Node: "b2", Alive: true, Epoch: 2, MetadataOffset: -1}
	c.Topics[0].Partitions[0] = view.Partition{
		Topic: "orders", Index: 0, Leader: 2, LeaderEpoch: 0, HighWatermark: 2, LogEndOffset: 2, ISR: []int{2, 3, 1}, ShownBroker: 3,
		Replicas: []view.Replica{
			{Broker: 2, Alive: true, InISR: true},
			{Broker: 3, Alive: true, Opened: true, InISR: true, LEO: 2, HW: 2},
			{Broker: 1, Alive: true, Opened: true, InISR: true, LEO: 2, HW: 2},
		},
		Records: []view.Record{{Offset: 0, Value: "a", Committed: true, Acked: true}, {Offset: 1, Value: "b", Committed: true, Acked: true}},
	}
	return c
}

// In the restart limbo no panel contradicts another: the partition says
// its leader has no replica yet, broker 2's row says the same (not
// "follower"), its node does not claim to lead orders/0 and says it has
// not registered, and a record opens from broker 3, whose log is shown,
// rather than from broker 2, which cannot serve it.
func TestRestartLimboIsShownAsSuch(t *testing.T) {
	html := render(t, restartLimbo())
	part := element(t, html, `<div class="partition"[^>]*data-partition="orders/0"[^>]*>`)
	if !strings.Contains(part, `data-leader="2"`) || !strings.Contains(part, `data-leader-state="no replica yet"`) {
		t.Errorf("partition: %s", part)
	}
	if !strings.Contains(html, `· `+en("no replica yet")) {
		t.Errorf("the leader badge does not say the leader has no replica yet")
	}
	row := element(t, html, `<div class="replica[^"]*"[^>]*data-replica="2"[^>]*>`)
	if !strings.Contains(row, `data-replica-role="no replica yet"`) || !strings.Contains(row, "no-replica") || strings.Contains(row, `data-leader="true"`) {
		t.Errorf("broker 2's row: %s", row)
	}
	if strings.Contains(html, `<span class="rep-role">follower · epoch 0</span><span class="rep-track"`) {
		t.Errorf("a row says follower for the named leader")
	}
	node := element(t, html, `<div class="node broker[^"]*"[^>]*data-broker="2"[^>]*>`)
	if !strings.Contains(node, `data-state="registering"`) {
		t.Errorf("broker 2's node: %s", node)
	}
	for _, want := range []string{"named leader of orders/0, not leading", "not registered yet · metadata holds epoch 2 of its previous run",
		`data-command="show batch orders/0 offset=1 broker=3"`} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(html, "leads orders/0") {
		t.Errorf("broker 2's node claims to lead orders/0")
	}
}
