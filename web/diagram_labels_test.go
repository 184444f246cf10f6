package web

import (
	"strconv"
	"testing"

	"github.com/loglab/loglab/engine/view"
)

// busyNetwork is a cluster whose every pair of nodes exchanged messages,
// about half of them in flight, their kinds shuffled by seed: pictures
// with more labels than room.
func busyNetwork(seed int) view.Cluster {
	c := failover()
	c.ClientNodes = []view.Client{{Name: "p1", Kind: "producer"}, {Name: "c1", Kind: "consumer"}}
	nodes := []string{"ctl", "b1", "b2", "b3", "p1", "c1"}
	kinds := []string{"Fetch", "FetchResponse", "Produce", "ProduceResponse", "BrokerHeartbeat", "BrokerHeartbeatResponse", "Metadata", "MetadataResponse"}
	c.Messages = nil
	id := uint64(100)
	for i, a := range nodes {
		for j, b := range nodes {
			if a == b {
				continue
			}
			m := view.Message{ID: id, From: a, To: b, Kind: kinds[(i*7+j*3+seed)%len(kinds)], SentAt: "1s", DeliverAt: "1.001s", Fate: "delivered"}
			if (i+j+seed)%2 == 0 {
				m.Fate, m.InFlight = "", true
			}
			c.Messages = append(c.Messages, m)
			id++
		}
	}
	return c
}

// labelBox is the box a label takes drawn at font size font (units),
// with the same per-character estimate and halo the layout uses.
func labelBox(l diagramLink, font float64) rect {
	w := float64(len([]rune(l.Label())))*8.2*font/14 + labelPadding
	h := 19.0 * font / 14
	return rect{l.LabelX - w/2, l.LabelY - h/2, w, h}
}

// On the projector page the labels are drawn at 16 units: the layout
// places them for that size, so no two labels it writes overlap there
// (a delivered message whose label finds no room has none rather than
// one on top of another), and drawn at the ordinary page's 14 units, in
// an ordinary picture, none covers a card.
func TestDiagramLabelsDoNotOverlapOnTheProjector(t *testing.T) {
	cases := []view.Cluster{failover()}
	for seed := range 8 {
		cases = append(cases, busyNetwork(seed))
	}
	for _, c := range cases {
		d := layoutDiagram(c)
		var placed []diagramLink
		for _, l := range d.Links {
			if !l.Unlabelled {
				placed = append(placed, l)
			}
		}
		if len(placed) < 3 {
			t.Fatalf("%d labels placed: the test draws too little", len(placed))
		}
		for i, a := range placed {
			ra := labelBox(a, labelFont)
			for _, b := range placed[i+1:] {
				if ov := ra.overlap(labelBox(b, labelFont)); ov > 0 {
					t.Errorf("at %v units the labels %s→%s %q and %s→%s %q overlap (%.0f units²)", labelFont, a.From, a.To, a.Kind, b.From, b.To, b.Kind, ov)
				}
			}
			if c.Messages[0].ID >= 100 {
				// Between two neighbouring brokers (118 units apart) a
				// label of an in-flight message cannot always avoid a
				// card; it still avoids the other labels.
				continue
			}
			for _, n := range d.Nodes {
				// At the size the ordinary page draws (14 units): between
				// two neighbouring broker cards, 118 units apart, a long
				// label at 16 cannot help touching one.
				if ov := labelBox(a, 14).overlap(n.rect()); ov > 0 {
					t.Errorf("the label %s→%s %q covers card %s (%.0f units²)", a.From, a.To, a.Kind, n.ID, ov)
				}
			}
		}
	}
	if labelFont < 16 {
		t.Errorf("labels laid out for %v units; the projector page draws them at 16", labelFont)
	}
}

// A controller whose line is longer than its box (a Leader that is not
// the active controller, the Chinese quorum line) gets a taller box, the
// rows below move down, and the cards stay apart.
func TestControllerBoxesGrowForTheirLine(t *testing.T) {
	c := failover()
	c.Quorum = []view.Controller{{ID: 1, Up: true, Role: "leader", Term: 12}, {ID: 2, Up: true, Role: "follower", Leader: 3, Term: 12}, {ID: 3, Up: true, Role: "leader", Term: 13}}
	c.ActiveController = 3
	d := layoutDiagram(c)
	var ctl1 diagramNode
	for _, n := range d.Nodes {
		if n.ID == "ctl1" {
			ctl1 = n
		}
	}
	if ctl1.H <= ctlH {
		t.Errorf("controller 1 (%q) keeps a %v-unit box", controllerLine(ctl1, c).en, ctl1.H)
	}
	if ctl1.top() < 0 {
		t.Errorf("the grown controller box starts at %v, above the picture", ctl1.top())
	}
	for i, a := range d.Nodes {
		for _, b := range d.Nodes[i+1:] {
			if a.rect().grow(8).overlap(b.rect()) > 0 {
				t.Errorf("%s and %s overlap", a.ID, b.ID)
			}
		}
	}
	// Without a controller: the Chinese line is the long one, and counts.
	c.Quorum, c.ActiveController, c.Controllers = nil, 0, 3
	c.MetadataOffset = 1234567
	w := controllerLine(diagramNode{Kind: "controller"}, c)
	if w.zh != "3 个节点的 KRaft quorum · 元数据 offset "+strconv.Itoa(1234567) {
		t.Errorf("the quorum line is %q", w.zh)
	}
	if wordsLines(w, 200-cardPaddingX) < 2 {
		t.Error("a 200-unit box fits the whole quorum line on one line: the estimate is too narrow")
	}
}

// Two parallel arrows 21 units apart: laid out for 14-unit labels their
// labels would sit one above the other, touching when drawn at 16; laid
// out for 16, the second moves clear of the first.
func TestParallelLabelsLeaveRoomForTheProjectorSize(t *testing.T) {
	link := func(y float64) diagramLink {
		s, e := point{100, y}, point{400, y}
		return diagramLink{From: "a", To: "b", Kind: "ProduceResponse", Fate: "in-flight", s: s, c: point{250, y}, e: e, MarkX: 120, MarkY: y}
	}
	d := diagram{Width: 500, Height: 300, Links: []diagramLink{link(121), link(100)}}
	placeLabels(&d)
	a, b := d.Links[1], d.Links[0] // placed in this order: the last is the most important
	if a.Unlabelled || b.Unlabelled {
		t.Fatalf("a label was dropped: %+v %+v", a, b)
	}
	if ov := labelBox(a, 16).overlap(labelBox(b, 16)); ov > 0 {
		t.Errorf("drawn at 16 units the labels at y=%v and y=%v overlap (%.0f units²)", a.LabelY, b.LabelY, ov)
	}
}
