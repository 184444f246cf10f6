package web

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/loglab/loglab/engine/view"
)

// The network diagram is laid out here, in plain Go, so the templ component
// only draws: the controller on top, the brokers in a row below it (two
// staggered rows in a larger cluster), the clients at the bottom, and one
// arrow per direction of every link that carried a recent message.
// Coordinates are SVG user units; the diagram scales to its column, text
// and all, so it reads the same on a laptop and on a projector.

// Diagram geometry, in SVG user units.
const (
	columnWidth  = 290.0 // horizontal space per broker
	minWidth     = 870.0
	ctlW, ctlH   = 330.0, 62.0
	brokerW      = 172.0
	brokerH      = 124.0
	clientW      = 140.0
	clientH      = 60.0
	rowCtl       = 44.0  // centre of the controller row
	rowBrokers   = 222.0 // centre of the broker row
	rowGap       = 150.0 // between the two broker rows of a larger cluster
	clientsBelow = 182.0 // from the last broker row to the clients
	belowBrokers = 116.0 // room under the last broker row without clients
	belowClients = 44.0
	clientColumn = 180.0 // horizontal space per client
	// producerW is a producer card's width when there is room: its
	// sequence lines ("orders/0 next 5 · acked 4 · 1 in flight").
	producerW = 236.0
	// lineH is the height of one more line on a card.
	lineH = 19.0
	// Up to this many brokers sit in one row; more are staggered over two
	// rows, so the picture stays narrow and its text legible.
	oneRow = 3
	// Arrow labels are laid out for the largest size the page draws them
	// at: 16 units on the projector page (style.css, html[data-projector=
	// "on"] .diagram .label), 14 elsewhere. Laid out for 14, a label the
	// projector draws ~14% wider runs into its neighbours.
	labelFont    = 16.0
	labelHeight  = 19.0 * labelFont / 14
	labelCharW   = 8.2 * labelFont / 14 // a sans-serif character, on average
	labelPadding = 8.0                  // the white halo (stroke 4) and a gap
)

// diagram is the laid-out network.
type diagram struct {
	Width, Height float64
	Nodes         []diagramNode
	Links         []diagramLink
}

// ViewBox is the SVG viewBox attribute.
func (d diagram) ViewBox() string { return "0 0 " + num(d.Width) + " " + num(d.Height) }

// diagramNode is a card: the controller, a broker or a client.
type diagramNode struct {
	ID     string // network name: "ctl", "b1", "p1"
	Kind   string // "controller", "broker", a client kind, or "node"
	X, Y   float64
	W, H   float64
	Broker view.Broker // for brokers
	Client view.Client // for the producers and consumers the view lists
	// Controller is a controller node's voter, Voter false for the node
	// that stands for ctl while no controller is active.
	Controller view.Controller
	Voter      bool
	Leads      []string // partitions this broker leads
	// Named are the partitions the metadata names it leader of but that
	// it does not lead (down, restarted without the replica, not caught up).
	Named []string
	// Side names the node's side of a network partition ("A", "B", ...);
	// "" when it can reach every node.
	Side string
	// internal names the cluster's internal topics, which LeadsWords counts
	// rather than lists.
	internal map[string]bool
}

func (n diagramNode) left() float64  { return n.X - n.W/2 }
func (n diagramNode) top() float64   { return n.Y - n.H/2 }
func (n diagramNode) rect() rect     { return rect{n.left(), n.top(), n.W, n.H} }
func (n diagramNode) Left() string   { return num(n.left()) }
func (n diagramNode) Top() string    { return num(n.top()) }
func (n diagramNode) Width() string  { return num(n.W) }
func (n diagramNode) Height() string { return num(n.H) }
func (n diagramNode) LeadsText() string {
	s := "leads no partition"
	if len(n.Leads) > 0 {
		s = "leads " + strings.Join(n.Leads, ", ")
	}
	if len(n.Named) > 0 {
		s += " · named leader of " + strings.Join(n.Named, ", ") + ", not leading"
	}
	return s
}

// LeadsWords is LeadsText in both languages, for the card's line (the
// tooltip stays English and names every partition). The card names the
// user topics' partitions and counts the internal ones: a group or a
// transaction spreads __consumer_offsets' and __transaction_state's 50
// partitions over every broker, which would bury the ones a lesson is about.
func (n diagramNode) LeadsWords() words {
	leads, leadsInternal := n.userPartitions(n.Leads)
	named, namedInternal := n.userPartitions(n.Named)
	w := words{"leads no partition", "不是任何分区的 leader"}
	if len(n.Leads) > 0 {
		w = words{"leads " + listWithInternal(leads, leadsInternal, "en"), "是 " + listWithInternal(leads, leadsInternal, "zh") + " 的 leader"}
	}
	if len(n.Named) > 0 {
		w.en += " · named leader of " + listWithInternal(named, namedInternal, "en") + ", not leading"
		w.zh += " · 被指定为 " + listWithInternal(named, namedInternal, "zh") + " 的 leader，但尚未担任"
	}
	return w
}

// userPartitions splits partition names into those of user topics and a
// count of those of internal topics.
func (n diagramNode) userPartitions(names []string) (user []string, internal int) {
	for _, p := range names {
		if n.internal[topicOf(p)] {
			internal++
		} else {
			user = append(user, p)
		}
	}
	return user, internal
}

// kafkaInternalTopics are Kafka's internal topics (Topic.INTERNAL_TOPICS,
// and the share groups' state in 4.x). The view marks only
// __consumer_offsets Internal; the card counts the others' partitions too.
var kafkaInternalTopics = map[string]bool{"__consumer_offsets": true, "__transaction_state": true, "__share_group_state": true}

func topicOf(partition string) string {
	if i := strings.LastIndexByte(partition, '/'); i >= 0 {
		return partition[:i]
	}
	return partition
}

func listWithInternal(user []string, internal int, lang string) string {
	s := strings.Join(user, ", ")
	if internal == 0 {
		return s
	}
	more := fmt.Sprintf("%d internal %s", internal, pluralS(internal, "partition"))
	if lang == "zh" {
		more = fmt.Sprintf("%d 个内部分区", internal)
	}
	if s == "" {
		return more
	}
	if lang == "zh" {
		return s + " 及 " + more
	}
	return s + " + " + more
}

// diagramLink is one direction of a link, drawn as an arrow for its most
// telling recent message: the newest one in flight, else the newest.
type diagramLink struct {
	From, To string
	Kind     string // the message kind shown
	Fate     string // "in-flight", "delivered", "dropped" or "lost"
	Count    int    // messages this way among the recent ones
	Dropped  int    // of which dropped or lost
	Path     string // SVG path data
	LabelX   float64
	LabelY   float64
	MarkX    float64 // the in-flight dot or the drop cross
	MarkY    float64
	Title    string
	TitleZh  string // Title in Chinese (web/titles_zh.go)
	// Unlabelled arrows found no free spot for their label: a delivered
	// message's label may cover nothing, any label no other label, to
	// keep a busy picture legible (the arrow's title names it).
	Unlabelled bool
	s, c, e    point // the curve Path draws

	// MessageID is the network's number of the message in flight drawn
	// (0 when none is): clicking its dot drops it (net drop id=N).
	MessageID uint64
}

// Label is the message kind; the arrow's colour and mark say its fate.
func (l diagramLink) Label() string { return l.Kind }

type rect struct{ X, Y, W, H float64 }

func (r rect) overlap(o rect) float64 {
	w := math.Min(r.X+r.W, o.X+o.W) - math.Max(r.X, o.X)
	h := math.Min(r.Y+r.H, o.Y+o.H) - math.Max(r.Y, o.Y)
	if w <= 0 || h <= 0 {
		return 0
	}
	return w * h
}

func (r rect) grow(d float64) rect { return rect{r.X - d, r.Y - d, r.W + 2*d, r.H + 2*d} }

type point struct{ X, Y float64 }

// layoutDiagram places the nodes and routes the recent messages.
func layoutDiagram(c view.Cluster) diagram {
	ctl := c.ControllerNode
	if ctl == "" {
		ctl = "ctl"
	}
	var clients []diagramNode
	for _, cl := range c.ClientNodes {
		clients = append(clients, diagramNode{ID: cl.Name, Kind: cl.Kind, Client: cl})
	}
	internal := map[string]bool{}
	for _, t := range c.Topics {
		if t.Internal || kafkaInternalTopics[t.Name] {
			internal[t.Name] = true
		}
	}
	brokers := make([]diagramNode, 0, len(c.BrokerNodes))
	for _, b := range c.BrokerNodes {
		id := b.Node
		if id == "" {
			id = "b" + strconv.Itoa(b.ID)
		}
		brokers = append(brokers, diagramNode{ID: id, Kind: "broker", Broker: b, Leads: c.Leads(b.ID), Named: c.NamedLeader(b.ID), internal: internal})
	}
	// The controllers: one node per voter across the top row (ctl1, ctl2,
	// ...), so the quorum's own Vote and Fetch are seen between them and
	// the brokers' metadata fetches going to the leader. ctl, the address
	// brokers register and heartbeat with, is the active controller's:
	// messages to it are drawn to that node; while no controller is
	// active a node of its own stands for the address nobody answers.
	var top []diagramNode
	for _, q := range c.Quorum {
		top = append(top, diagramNode{ID: "ctl" + strconv.Itoa(q.ID), Kind: "controller", Controller: q, Voter: true})
	}
	if c.ActiveController == 0 || len(top) == 0 {
		top = append(top, diagramNode{ID: ctl, Kind: "controller"})
	}
	// A message may name a node the view does not list (a client created
	// by a driver, say): draw it with the clients rather than lose it.
	known := map[string]bool{ctl: true}
	for _, n := range top {
		known[n.ID] = true
	}
	for _, n := range brokers {
		known[n.ID] = true
	}
	for _, n := range clients {
		known[n.ID] = true
	}
	for i := len(c.Messages) - 1; i >= 0; i-- {
		m := c.Messages[i]
		for _, id := range []string{m.From, m.To} {
			if !known[id] {
				known[id] = true
				clients = append(clients, diagramNode{ID: id, Kind: "node"})
			}
		}
	}

	// Brokers: one row, or two staggered rows (b1, b3, b5 above; b2, b4
	// below, half a column to the right) for larger clusters.
	cols, staggered := float64(len(brokers)), len(brokers) > oneRow
	if staggered {
		cols = math.Ceil(float64(len(brokers))/2) + 0.5
	}
	d := diagram{Width: math.Max(minWidth, math.Max(columnWidth*cols, clientColumn*float64(len(clients))))}
	left := (d.Width - columnWidth*cols) / 2
	// The controllers' cards grow with their line, which wraps rather
	// than being cut (a role like "Leader, but controller 3 is the
	// active controller", a long Chinese line); the rows below move down.
	topW := math.Min(ctlW, d.Width/float64(len(top))-20)
	topH := ctlH
	for _, n := range top {
		topH = math.Max(topH, controllerHeight(n, c, topW))
	}
	down := topH - ctlH
	// Every broker card is as tall as the one with the most lines: the
	// cards' text wraps rather than being cut, and the rows make room.
	h := brokerH
	for _, b := range brokers {
		h = math.Max(h, brokerHeight(b, c))
	}
	grow := h - brokerH
	lastRow := rowBrokers + down
	for i := range brokers {
		x, y := left+columnWidth*(float64(i)+0.5), rowBrokers+down+grow/2
		if staggered {
			x = left + columnWidth*(float64(i/2)+0.5+0.5*float64(i%2))
			y += (rowGap + grow) * float64(i%2)
		}
		brokers[i].X, brokers[i].Y, brokers[i].W, brokers[i].H = x, y, brokerW, h
		lastRow = math.Max(lastRow, y)
	}
	d.Height = lastRow + belowBrokers + grow/2
	// The clients hang from one line: a producer's card grows downwards
	// with what its TransactionManager holds.
	clientsTop := lastRow + clientsBelow + grow/2 - clientH/2
	for i := range clients {
		// Wide enough for the client's name, up to its share of the width.
		w := math.Max(clientW, float64(len([]rune(clients[i].ID)))*10+28)
		if clients[i].Client.Producer != nil {
			w = math.Max(w, producerW)
		}
		w = math.Min(w, d.Width/float64(len(clients))-20)
		h := clientHeight(clients[i].Client) + producerExtra(clients[i].Client, w)
		clients[i].X, clients[i].Y = spread(d.Width, i, len(clients)), clientsTop+h/2
		clients[i].W, clients[i].H = w, h
		d.Height = math.Max(d.Height, clientsTop+h+belowClients-clientH/2)
	}
	for i := range top {
		// Grown downwards: the row's top edge stays where it was.
		top[i].X, top[i].Y, top[i].W, top[i].H = spread(d.Width, i, len(top)), rowCtl+down/2, topW, topH
	}
	d.Nodes = append(d.Nodes, top...)
	d.Nodes = append(d.Nodes, brokers...)
	d.Nodes = append(d.Nodes, clients...)
	byID := map[string]diagramNode{}
	for _, n := range d.Nodes {
		byID[n.ID] = n
		if n.Voter && n.Controller.ID == c.ActiveController {
			byID[ctl] = n // the active controller answers at ctl
		}
	}

	sides := partitionSides(d.Nodes, c.Cut)
	for i := range d.Nodes {
		d.Nodes[i].Side = sides[d.Nodes[i].ID]
	}
	d.Links = routeMessages(c.Messages, byID)
	placeLabels(&d)
	return d
}

// spread is the centre of slot i of n across width w.
func spread(w float64, i, n int) float64 { return w * (float64(i) + 0.5) / float64(n) }

// routeMessages groups the messages by direction and draws one arrow for
// each: in flight on top of dropped on top of delivered.
func routeMessages(msgs []view.Message, byID map[string]diagramNode) []diagramLink {
	type flow struct{ from, to string }
	index := map[flow]int{}
	var links []diagramLink
	shownInFlight := map[flow]bool{}
	for _, m := range msgs { // newest first
		k := flow{m.From, m.To}
		i, seen := index[k]
		if !seen {
			i = len(links)
			index[k] = i
			links = append(links, diagramLink{From: m.From, To: m.To, Kind: m.Kind, Fate: fateOf(m)})
		}
		l := &links[i]
		l.Count++
		if m.Fate == "dropped" || m.Fate == "lost" {
			l.Dropped++
		}
		if m.InFlight && !shownInFlight[k] {
			shownInFlight[k] = true
			l.Kind, l.Fate, l.MessageID = m.Kind, "in-flight", m.ID
			l.Title, l.TitleZh = messageTitle(m), messageTitleZh(m)
		}
		if !seen && !m.InFlight {
			l.Title, l.TitleZh = messageTitle(m), messageTitleZh(m)
		}
	}
	var out []diagramLink
	for _, fate := range []string{"delivered", "lost", "dropped", "in-flight"} {
		for _, l := range links {
			if l.Fate != fate {
				continue
			}
			a, okA := byID[l.From]
			b, okB := byID[l.To]
			if !okA || !okB || a.ID == b.ID {
				continue
			}
			s, ctrl, e := route(a, b, messageBow(a, b), 3, 7)
			l.s, l.c, l.e = s, ctrl, e
			l.Path = pathData(s, ctrl, e)
			switch l.Fate {
			case "in-flight":
				p := quad(s, ctrl, e, 0.62)
				l.MarkX, l.MarkY = p.X, p.Y
			case "dropped": // cut on the wire
				p := quad(s, ctrl, e, 0.5)
				l.MarkX, l.MarkY = p.X, p.Y
			case "lost": // reached a node that is down
				p := quad(s, ctrl, e, 0.88)
				l.MarkX, l.MarkY = p.X, p.Y
			}
			if more := l.Count - 1; more > 0 {
				l.Title += fmt.Sprintf(" (and %d earlier this way", more)
				l.TitleZh += fmt.Sprintf("（此前这个方向还有 %d 条", more)
				if l.Dropped > 0 {
					l.Title += fmt.Sprintf(", %d dropped or lost", l.Dropped)
					l.TitleZh += fmt.Sprintf("，其中 %d 条被丢弃或丢失", l.Dropped)
				}
				l.Title += ")"
				l.TitleZh += "）"
			}
			out = append(out, l)
		}
	}
	return out
}

func fateOf(m view.Message) string {
	if m.InFlight || m.Fate == "" {
		return "in-flight"
	}
	return m.Fate
}

func messageTitle(m view.Message) string {
	switch {
	case m.InFlight:
		return fmt.Sprintf("%s → %s: %s sent at %s, in flight until %s", m.From, m.To, m.Kind, m.SentAt, m.DeliverAt)
	case m.Fate == "dropped":
		return fmt.Sprintf("%s → %s: %s sent at %s, dropped by the network", m.From, m.To, m.Kind, m.SentAt)
	case m.Fate == "lost":
		return fmt.Sprintf("%s → %s: %s sent at %s, lost: an end was down", m.From, m.To, m.Kind, m.SentAt)
	}
	return fmt.Sprintf("%s → %s: %s sent at %s, delivered at %s", m.From, m.To, m.Kind, m.SentAt, m.DeliverAt)
}

// messageBow is how far an arrow bends away from the straight line, to its
// left: the two directions of a link bend opposite ways and stay apart,
// and a link between brokers that are not neighbours bends around the
// brokers between them.
func messageBow(a, b diagramNode) float64 {
	if a.Y == b.Y {
		if dist(a, b) > columnWidth*1.2 {
			return 0.3 * dist(a, b)
		}
		return 56
	}
	return 30
}

// partitionSides names the sides of a network partition from the pairs of
// nodes it separates: nodes on one side reach each other and no one on
// another side. Sides are lettered in node order; nodes the partition does
// not name reach everyone and have no side.
func partitionSides(nodes []diagramNode, cut []view.Link) map[string]string {
	cutOff := map[string]bool{}
	separated := map[[2]string]bool{}
	for _, l := range cut {
		cutOff[l.A], cutOff[l.B] = true, true
		separated[[2]string{l.A, l.B}], separated[[2]string{l.B, l.A}] = true, true
	}
	sides := map[string]string{}
	next := 'A'
	for i, n := range nodes {
		if !cutOff[n.ID] || sides[n.ID] != "" {
			continue
		}
		side := string(next)
		next++
		sides[n.ID] = side
		for _, m := range nodes[i+1:] {
			if cutOff[m.ID] && sides[m.ID] == "" && !separated[[2]string{n.ID, m.ID}] {
				sides[m.ID] = side
			}
		}
	}
	return sides
}

func dist(a, b diagramNode) float64 { return math.Hypot(b.X-a.X, b.Y-a.Y) }

// route is a quadratic curve from a's edge to b's edge, bent by bow to the
// left of the direction a→b; gapA and gapB keep it off the cards (the
// arrowhead needs room at b).
func route(a, b diagramNode, bow, gapA, gapB float64) (s, c, e point) {
	dx, dy := b.X-a.X, b.Y-a.Y
	l := math.Hypot(dx, dy)
	nx, ny := dy/l, -dx/l
	c = point{(a.X+b.X)/2 + nx*bow, (a.Y+b.Y)/2 + ny*bow}
	return edge(a, c, gapA), c, edge(b, c, gapB)
}

// edge is where the ray from n's centre towards p leaves n's card, gap
// further out.
func edge(n diagramNode, p point, gap float64) point {
	dx, dy := p.X-n.X, p.Y-n.Y
	l := math.Hypot(dx, dy)
	if l == 0 {
		return point{n.X, n.Y}
	}
	t := math.Inf(1)
	if dx != 0 {
		t = math.Min(t, (n.W/2)/math.Abs(dx))
	}
	if dy != 0 {
		t = math.Min(t, (n.H/2)/math.Abs(dy))
	}
	return point{n.X + dx*t + dx/l*gap, n.Y + dy*t + dy/l*gap}
}

func quad(s, c, e point, t float64) point {
	u := 1 - t
	return point{u*u*s.X + 2*u*t*c.X + t*t*e.X, u*u*s.Y + 2*u*t*c.Y + t*t*e.Y}
}

func pathData(s, c, e point) string {
	return fmt.Sprintf("M%s,%s Q%s,%s %s,%s", num(s.X), num(s.Y), num(c.X), num(c.Y), num(e.X), num(e.Y))
}

// placeLabels puts each arrow's label on its curve where it covers no card,
// no mark and no other label, trying the middle first; in flight and
// dropped messages choose first. When nothing is free, a delivered
// message's arrow goes unlabelled (its tooltip still names it), and any
// other takes the spot that overlaps least.
func placeLabels(d *diagram) {
	// A label over a card hides its text and buttons: that costs more
	// than one label touching a mark. A label over another label makes
	// both unreadable: a spot that overlaps one is never taken.
	var cards, marks, labels []rect
	for _, n := range d.Nodes {
		cards = append(cards, n.rect().grow(3))
	}
	for _, l := range d.Links {
		if l.Fate != "delivered" {
			marks = append(marks, rect{l.MarkX - 7, l.MarkY - 7, 14, 14})
		}
	}
	bounds := rect{0, 0, d.Width, d.Height}
	order := make([]int, 0, len(d.Links))
	for i := len(d.Links) - 1; i >= 0; i-- { // the links are drawn most important last
		order = append(order, i)
	}
	for _, i := range order {
		l := &d.Links[i]
		s, c, e := l.s, l.c, l.e
		w := float64(len([]rune(l.Label())))*labelCharW + labelPadding
		best, bestCost := point{}, math.Inf(1)
		for _, t := range []float64{0.5, 0.4, 0.6, 0.32, 0.68, 0.25, 0.75, 0.18, 0.82} {
			for _, shift := range []float64{0, -11, 11, -22, 22} {
				p := quad(s, c, e, t)
				p.Y += shift
				r := rect{p.X - w/2, p.Y - labelHeight/2, w, labelHeight}
				if slices.ContainsFunc(labels, func(o rect) bool { return r.overlap(o) > 0 }) {
					continue
				}
				cost := 0.0
				for _, o := range cards {
					cost += 3 * r.overlap(o)
				}
				for _, o := range marks {
					cost += r.overlap(o)
				}
				cost += (r.W*r.H - r.overlap(bounds)) * 4 // outside the picture
				cost += math.Abs(t-0.5)*2 + math.Abs(shift)*0.05
				if cost < bestCost {
					best, bestCost = p, cost
				}
			}
		}
		// A delivered message gives its label up rather than cover
		// anything; any message gives it up rather than cover another
		// label (its arrow's title and the message log still name it).
		if math.IsInf(bestCost, 1) || (bestCost >= 1 && l.Fate == "delivered") {
			l.Unlabelled = true
			continue
		}
		l.LabelX, l.LabelY = best.X, best.Y
		labels = append(labels, rect{best.X - w/2, best.Y - labelHeight/2, w, labelHeight}.grow(1))
	}
}

// num prints a coordinate compactly: SVG needs no more than a tenth.
func num(f float64) string { return strconv.FormatFloat(math.Round(f*10)/10, 'f', -1, 64) }

// clientHeight is a client card's height: a producer's grows with what
// it draws (producerHeight).
func clientHeight(cl view.Client) float64 {
	if cl.Producer == nil {
		return clientH
	}
	return producerHeight(cl)
}

// Card text is HTML laid out by the browser after the diagram is: these
// estimates err wide, so a card is never too small for its lines (the
// widest of the page's fonts, DejaVu Sans, is ~0.58 em a character; the
// monospace figures ~0.6 em).
const (
	cardTextW     = 8.4  // a 14-unit character on a card
	cardWideTextW = 14.5 // a CJK character
	cardPaddingX  = 20.0 // a card's padding and border, both sides
)

func textUnits(s string) float64 {
	w := 0.0
	for _, r := range s {
		if r >= 0x2E80 {
			w += cardWideTextW
		} else {
			w += cardTextW
		}
	}
	return w
}

// wrappedLines is how many lines s takes in a box width units wide when
// broken at spaces, and anywhere in a word longer than a line (the cards'
// overflow-wrap: anywhere).
func wrappedLines(s string, width float64) int {
	lines, used := 1, 0.0
	for i, word := range strings.Split(s, " ") {
		w := textUnits(word)
		space := 0.0
		if i > 0 && used > 0 {
			space = cardTextW
		}
		switch {
		case used+space+w <= width:
			used += space + w
		case w <= width:
			lines++
			used = w
		default: // broken inside the word
			if used > 0 {
				lines++
			}
			lines += int(math.Ceil(w/width)) - 1
			used = math.Mod(w, width)
		}
	}
	return lines
}

// wordsLines is the lines the longer of the two languages takes.
func wordsLines(w words, width float64) int {
	return max(wrappedLines(w.en, width), wrappedLines(w.zh, width))
}

// brokerHeight is a broker card's height with its wrapping lines: which
// partitions it leads, and a restarted broker's registration.
func brokerHeight(n diagramNode, c view.Cluster) float64 {
	inner := brokerW - cardPaddingX
	extra := wordsLines(n.LeadsWords(), inner) - 1
	if n.Broker.Alive && !n.Broker.Registered {
		extra += wordsLines(notRegisteredWords(n.Broker), inner) - 1
	}
	return brokerH + float64(extra)*lineH
}

// controllerHeight is a controller card's height in a box w wide, with
// the line under its head wrapped (network.templ's nodeCard writes it).
func controllerHeight(n diagramNode, c view.Cluster, w float64) float64 {
	return ctlH + float64(wordsLines(controllerLine(n, c), w-cardPaddingX)-1)*lineH
}

// controllerLine is the text of a controller card's line, as nodeCard
// writes it, in both languages; a network partition's side chip is
// counted whenever one is in force (the sides are found after layout).
func controllerLine(n diagramNode, c view.Cluster) words {
	var w words
	offset := strconv.FormatInt(c.MetadataOffset, 10)
	switch {
	case !n.Voter:
		w = words{fmt.Sprintf("KRaft quorum of %d · metadata offset %s", c.Controllers, offset), fmt.Sprintf("%d 个节点的 KRaft quorum · 元数据 offset %s", c.Controllers, offset)}
	case n.Controller.ID == c.ActiveController:
		s := "epoch " + u64(n.Controller.Term) + " · metadata offset " + offset
		w = words{s, s}
	default:
		w = controllerRole(n.Controller, c)
		if w.zh == "" {
			w.zh = w.en
		}
		if n.Controller.Up {
			w.en += " · epoch " + u64(n.Controller.Term)
			w.zh += " · epoch " + u64(n.Controller.Term)
		}
	}
	if len(c.Cut) > 0 || len(c.CutLinks) > 0 {
		w.en += " side A"
		w.zh += " A 侧"
	}
	return w
}

// notRegisteredWords is a restarted broker's line until it registers.
func notRegisteredWords(b view.Broker) words {
	return words{fmt.Sprintf("not registered yet · metadata holds epoch %d of its previous run", b.Epoch), fmt.Sprintf("尚未注册 · 元数据中仍是它上一次运行的 epoch %d", b.Epoch)}
}

// producerExtra is the room a producer card of width w needs for its
// transactional.id line when the id wraps.
func producerExtra(cl view.Client, w float64) float64 {
	if cl.Producer == nil || cl.Producer.TransactionalID == "" {
		return 0
	}
	lines := wrappedLines("transactional.id "+shortText(cl.Producer.TransactionalID), w-cardPaddingX)
	return float64(lines-1) * lineH
}
