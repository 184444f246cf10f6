package web

import (
	"fmt"
	"strconv"

	"github.com/loglab/loglab/engine/view"
)

// Faults are clicked, not only typed: a link of the network diagram cuts
// (or, once cut, heals) that one link, a message in flight drops that one
// message, and the crash and restart buttons of the cards kill and start
// their process. Each control carries the lab command it stands for, so a
// click lands in the transcript exactly as typing it would.

// labNodeName is the lab's name for a network node: a broker by its id
// ("b2" is 2), the active controller's address and the clients as they
// are. ok is false for a node the lab cannot name.
func labNodeName(c view.Cluster, id string) (string, bool) {
	if id == c.ControllerNode || (c.ControllerNode == "" && id == "ctl") {
		return "ctl", true
	}
	for _, b := range c.BrokerNodes {
		if b.Node == id || (b.Node == "" && id == "b"+strconv.Itoa(b.ID)) {
			return strconv.Itoa(b.ID), true
		}
	}
	for _, cl := range c.ClientNodes {
		if cl.Name == id {
			return cl.Name, true
		}
	}
	return "", false
}

// linkIsCut says whether net cut cut the link between a and b.
func linkIsCut(c view.Cluster, a, b string) bool {
	for _, l := range c.CutLinks {
		if (l.A == a && l.B == b) || (l.A == b && l.B == a) {
			return true
		}
	}
	return false
}

// linkToggle is what clicking the link between two nodes does: cut it, or
// heal it when it is cut; ok is false when the lab cannot name an end.
func linkToggle(c view.Cluster, from, to string) (command, label string, ok bool) {
	a, okA := labNodeName(c, from)
	b, okB := labNodeName(c, to)
	if !okA || !okB || a == b {
		return "", "", false
	}
	if linkIsCut(c, from, to) {
		return "net heal " + a + " " + b, fmt.Sprintf("heal the cut link %s–%s (net heal %s %s)", from, to, a, b), true
	}
	return "net cut " + a + " " + b, fmt.Sprintf("cut the link %s–%s: nothing crosses it either way until healed (net cut %s %s)", from, to, a, b), true
}

// linkTabStop gives each pair of nodes one stop in the keyboard's tab
// order, on the first of its two arrows; the other arrow is clickable too.
func linkTabStop(links []diagramLink, i int) string {
	for _, l := range links[:i] {
		if (l.From == links[i].From && l.To == links[i].To) || (l.From == links[i].To && l.To == links[i].From) {
			return "-1"
		}
	}
	return "0"
}

// dropCommand drops the one message a packet stands for.
func dropCommand(id uint64) string { return "net drop id=" + strconv.FormatUint(id, 10) }

// dropLabel names the message a click drops.
func dropLabel(l diagramLink) string {
	return fmt.Sprintf("drop message #%d, %s %s → %s, on the wire (net drop id=%d)", l.MessageID, l.Kind, l.From, l.To, l.MessageID)
}

// cutLine is a link cut by net cut, drawn dashed straight across between
// its ends whether or not a message tried it lately; clicking heals it.
type cutLine struct {
	A, B    string
	Path    string
	MarkX   float64
	MarkY   float64
	Command string
	Label   string
	LabelZh string
}

// cutLines draws the links net cut cut, between the cards it joins.
func cutLines(d diagram, c view.Cluster) []cutLine {
	byID := map[string]diagramNode{}
	for _, n := range d.Nodes {
		byID[n.ID] = n
	}
	var out []cutLine
	for _, l := range c.CutLinks {
		a, okA := byID[l.A]
		b, okB := byID[l.B]
		if !okA || !okB {
			continue
		}
		cmd, label, ok := linkToggle(c, l.A, l.B)
		if !ok {
			continue
		}
		labelZh := linkToggleZh(c, l.A, l.B)
		s, e := edge(a, point{b.X, b.Y}, 4), edge(b, point{a.X, a.Y}, 4)
		out = append(out, cutLine{A: l.A, B: l.B, Path: fmt.Sprintf("M%s,%s L%s,%s", num(s.X), num(s.Y), num(e.X), num(e.Y)),
			MarkX: (s.X + e.X) / 2, MarkY: (s.Y + e.Y) / 2, Command: cmd, Label: label, LabelZh: labelZh})
	}
	return out
}

// consumerDown says whether the consumer named name is not running
// (crashed or closed); known is false when the view has no such consumer.
func consumerDown(c view.Cluster, name string) (down, known bool) {
	for _, cl := range c.ClientNodes {
		if cl.Name == name && cl.Kind == "consumer" {
			return cl.Down, true
		}
	}
	return false, false
}

// memberFault is the crash or restart a group member's card offers: crash
// for the running process's member, restart for the member a crashed (or
// closed) process left behind; none for a member of an earlier process of
// a consumer that runs again under the same name.
func memberFault(c view.Cluster, m view.GroupMember) string {
	down, known := consumerDown(c, m.Client)
	gone := m.Phase == "crashed" || m.Phase == "left"
	switch {
	case !known:
		return ""
	case !down && !gone:
		return "consumer crash " + m.Client
	case down && gone:
		return "consumer restart " + m.Client
	}
	return ""
}
