package web

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/loglab/loglab/engine/view"
)

// The rebalance timeline is laid out here, in plain Go, so the templ
// component only draws: every group's members one row each, the groups
// stacked on one shared axis of virtual time, so an eager group's
// stop-the-world and a cooperative or KIP-848 group's incremental
// rebalance after the same event can be compared side by side.
// Coordinates are SVG user units; the picture scales to its column.

// Timeline geometry, in SVG user units.
const (
	tlWidth     = 860.0
	tlLabelW    = 130.0 // the client names' column
	tlRight     = 24.0
	tlHeaderH   = 26.0 // a group's title line
	tlRowH      = 34.0
	tlGroupGap  = 12.0
	tlAxisH     = 34.0
	tlBarTop    = 15.0 // from a row's top to its bar
	tlBarH      = 13.0
	tlLabelCW   = 6.4  // an 11-unit Latin character, on average
	tlLabelCJKW = 11.0 // an 11-unit Chinese character
	tlMinBarW   = 2.0
	tlTickCount = 6
)

// timeline is the laid-out rebalance timeline of every group.
type timeline struct {
	Width, Height float64
	Lo, Hi        int64 // the axis' virtual milliseconds
	NowX          float64
	AxisY         float64
	Groups        []tlGroup
	Ticks         []tlTick
}

func (t timeline) ViewBox() string { return "0 0 " + num(t.Width) + " " + num(t.Height) }

// PlotLeft and PlotRight bound the time axis.
func (t timeline) PlotLeft() float64  { return tlLabelW }
func (t timeline) PlotRight() float64 { return t.Width - tlRight }

type tlGroup struct {
	Group  view.Group
	Y, H   float64
	Title  words
	Rows   []tlRow
	Drawn  int // rebalances drawn
	Hidden int // older ones left out
	// Owners are the group's partition rows under its member rows
	// (ownership.go), from OwnersY; OwnersHidden counts those left out.
	Owners       []owRow
	OwnersY      float64
	OwnersHidden int
}

type tlRow struct {
	Client string
	Colour int
	Y      float64
	Bars   []tlBar
}

// tlBar is one member's part in one rebalance: solid while it still
// consumed some partitions, a hollow gap while it consumed nothing.
type tlBar struct {
	Solid      []tlSpan
	Gap        *tlSpan // the paused interval, nil when there was none
	PausedMs   int64
	InProgress bool
	Label      words
	LabelX     float64
	ShowLabel  bool
	Title      string
	Protocol   string
}

type tlSpan struct{ X, W float64 }

type tlTick struct {
	X     float64
	Label string
}

// layoutTimeline lays out every group's rebalances on one axis, from a
// little before the oldest rebalance drawn to now.
func layoutTimeline(c view.Cluster) timeline {
	t := timeline{Width: tlWidth}
	type pick struct {
		rs     []view.Rebalance
		hidden int
	}
	picks := make([]pick, len(c.Groups))
	lo, hi := int64(-1), max(c.NowMs, 0)
	for i, g := range c.Groups {
		rs := g.Rebalances
		if len(rs) > RebalancesShown {
			picks[i].hidden = len(rs) - RebalancesShown
			rs = rs[len(rs)-RebalancesShown:]
		}
		picks[i].rs = rs
		for _, r := range rs {
			if lo < 0 || r.Start < lo {
				lo = r.Start
			}
			hi = max(hi, r.End, r.PausedTo)
		}
	}
	if lo < 0 {
		lo = 0
	}
	// A margin before the oldest rebalance, so its bar does not start on
	// the axis' edge.
	lo = max(0, lo-(hi-lo)/20)
	// At least a second wide: a cluster just started, or one rebalance of
	// a few ms, still gets an axis of round ticks.
	hi = max(hi, lo+1000)
	t.Lo, t.Hi = lo, hi
	x := func(ms int64) float64 {
		ms = min(max(ms, lo), hi)
		return t.PlotLeft() + float64(ms-lo)*(t.PlotRight()-t.PlotLeft())/float64(hi-lo)
	}

	y := 4.0
	for i, g := range c.Groups {
		tg := tlGroup{Group: g, Y: y, Hidden: picks[i].hidden, Drawn: len(picks[i].rs)}
		tg.Title = timelineTitle(g, picks[i].rs)
		rowOf := map[string]int{}
		addRow := func(client string, colour int) {
			if _, ok := rowOf[client]; ok {
				return
			}
			rowOf[client] = len(tg.Rows)
			tg.Rows = append(tg.Rows, tlRow{Client: client, Colour: colour})
		}
		focused := focusedMembers(g)
		for j, m := range g.Members {
			if focused[j] {
				addRow(m.Client, m.Colour)
			}
		}
		for _, r := range picks[i].rs {
			addRow(r.Client, -1)
		}
		for j := range tg.Rows {
			tg.Rows[j].Y = y + tlHeaderH + float64(j)*tlRowH
		}
		labelEnd := make([]float64, len(tg.Rows))
		firstOf := map[string]int{} // each member's first rebalance, in the whole log
		for k, r := range g.Rebalances {
			if _, ok := firstOf[r.Client]; !ok {
				firstOf[r.Client] = k
			}
		}
		for k, r := range picks[i].rs {
			j := rowOf[r.Client]
			b := layoutBar(r, c.NowMs, x)
			if b.Gap == nil && len(r.Revoked) == 0 && firstOf[r.Client] == picks[i].hidden+k {
				// A member's first rebalance: it had nothing to keep on
				// consuming yet.
				b.Label = words{"joined", "加入"}
			}
			// A label that would run past the axis' right end (a pause
			// near now) ends there instead: the SVG clips what overflows.
			b.LabelX = max(t.PlotLeft(), min(b.LabelX, t.PlotRight()-labelWidth(b.Label)))
			// Labels of rebalances close in time would overlap: a pause's
			// length is always written, "kept consuming" only where it fits.
			b.ShowLabel = b.Gap != nil || b.LabelX >= labelEnd[j]
			if b.ShowLabel {
				labelEnd[j] = b.LabelX + labelWidth(b.Label) + 6
			}
			tg.Rows[j].Bars = append(tg.Rows[j].Bars, b)
		}
		membersH := float64(max(len(tg.Rows), 1)) * tlRowH
		tg.OwnersY = y + tlHeaderH + membersH
		var ownersH float64
		tg.Owners, ownersH, tg.OwnersHidden = layoutOwnership(g, tg.OwnersY, max(c.NowMs, 0), lo, hi, x, t.PlotLeft(), t.PlotRight())
		tg.H = tlHeaderH + membersH + ownersH
		t.Groups = append(t.Groups, tg)
		y += tg.H + tlGroupGap
	}
	t.AxisY = y
	t.Height = y + tlAxisH
	t.NowX = x(max(c.NowMs, 0))
	for _, ms := range axisTicks(lo, hi) {
		t.Ticks = append(t.Ticks, tlTick{X: x(ms), Label: seconds(ms)})
	}
	return t
}

// labelWidth estimates a label's width in the wider of its languages: a
// Chinese character is about as wide as the font is high.
func labelWidth(w words) float64 {
	width := func(s string) float64 {
		n := 0.0
		for _, r := range s {
			if r >= 0x2e80 {
				n += tlLabelCJKW
			} else {
				n += tlLabelCW
			}
		}
		return n
	}
	return max(width(w.en), width(w.zh))
}

// layoutBar places one rebalance: solid from Start to End except where
// the member was paused, which is a gap. One still running ends at now.
func layoutBar(r view.Rebalance, now int64, x func(int64) float64) tlBar {
	b := tlBar{Protocol: r.Protocol}
	end := r.End
	if end < 0 {
		b.InProgress, end = true, max(now, r.Start)
	}
	from, to := r.PausedFrom, r.PausedTo
	pausing := from >= 0 && to < 0
	if pausing {
		to = end
	}
	span := func(a, z int64) tlSpan {
		return tlSpan{X: x(a), W: max(x(z)-x(a), tlMinBarW)}
	}
	if from >= 0 && to >= from {
		if from > r.Start {
			b.Solid = append(b.Solid, span(r.Start, from))
		}
		g := span(from, to)
		b.Gap = &g
		b.PausedMs = to - from
		if end > to {
			b.Solid = append(b.Solid, span(to, end))
		}
		ms := strconv.FormatInt(b.PausedMs, 10)
		if pausing {
			b.Label = words{"paused " + ms + " ms so far", "已暂停 " + ms + " ms，仍在继续"}
		} else {
			b.Label = words{"paused " + ms + " ms", "暂停 " + ms + " ms"}
		}
		b.LabelX = g.X
	} else {
		b.Solid = append(b.Solid, span(r.Start, end))
		b.Label = keptWords(r)
		b.LabelX = x(r.Start)
	}
	b.Title = rebalanceTitle(r, end, b)
	return b
}

// keptWords labels a bar without a pause. Not "no pause": the member
// kept consuming what it kept, but a partition it revoked stopped, owned
// by nobody until reassigned, and the label says so where it applies.
func keptWords(r view.Rebalance) words {
	switch len(r.Revoked) {
	case 0:
		return words{"kept consuming", "一直在消费"}
	case 1:
		return words{"kept consuming · gave up " + r.Revoked[0], "一直在消费 · 交出 " + r.Revoked[0]}
	}
	n := strconv.Itoa(len(r.Revoked))
	return words{"kept consuming · gave up " + n + " partitions", "一直在消费 · 交出 " + n + " 个分区"}
}

// rebalanceTitle is the bar's text alternative, in both languages (an SVG
// <title> holds text only, so it cannot follow the language switch).
func rebalanceTitle(r view.Rebalance, end int64, b tlBar) string {
	en := []string{r.Client + " · " + r.Protocol + " rebalance from " + seconds(r.Start)}
	zh := []string{r.Client + " · " + r.Protocol + " rebalance，开始于 " + seconds(r.Start)}
	d := strconv.FormatInt(end-r.Start, 10)
	if b.InProgress {
		en = append(en, "still in progress after "+d+" ms")
		zh = append(zh, "已进行 "+d+" ms，尚未结束")
	} else {
		en = append(en, "consuming its new assignment after "+d+" ms")
		zh = append(zh, d+" ms 后开始消费新的分配")
	}
	if b.Gap != nil {
		ms := strconv.FormatInt(b.PausedMs, 10)
		en = append(en, "paused "+ms+" ms from "+seconds(r.PausedFrom)+": consumed nothing")
		zh = append(zh, "从 "+seconds(r.PausedFrom)+" 起暂停 "+ms+" ms：什么也没有消费")
	} else if len(r.Revoked) > 0 {
		en = append(en, "the member kept consuming the partitions it kept; those it revoked had no owner until a rebalance assigned them again (the partition rows below)")
		zh = append(zh, "成员继续消费保留下来的分区；它撤销的分区在被一次 rebalance 重新分配之前没有属主（见下方的分区行）")
	} else {
		en = append(en, "the member kept consuming the partitions it kept")
		zh = append(zh, "成员继续消费保留下来的分区")
	}
	if len(r.Revoked) > 0 {
		en = append(en, "revoked "+strings.Join(r.Revoked, ","))
		zh = append(zh, "撤销 "+strings.Join(r.Revoked, ","))
	}
	if len(r.Assigned) > 0 {
		en = append(en, "assigned "+strings.Join(r.Assigned, ","))
		zh = append(zh, "分配到 "+strings.Join(r.Assigned, ","))
	}
	if r.Reason != "" {
		en = append(en, "reason: "+r.Reason)
		zh = append(zh, "原因："+r.Reason)
	}
	return strings.Join(en, " · ") + "\n" + strings.Join(zh, " · ")
}

// timelineTitle is a group's line above its rows: its id, protocol and
// assignor as Kafka names them, the kinds of rebalance drawn and how many
// bars: one per member per rebalance (the view does not say which bars
// belong to one generation).
func timelineTitle(g view.Group, rs []view.Rebalance) words {
	var kinds []string
	for _, r := range rs {
		if r.Protocol != "" && !slices.Contains(kinds, r.Protocol) {
			kinds = append(kinds, r.Protocol)
		}
	}
	s := g.ID + " · " + g.Protocol
	if g.Assignor != "" {
		s += " · " + g.Assignor
	}
	if len(kinds) > 0 {
		s += " · " + strings.Join(kinds, "/")
	}
	n := strconv.Itoa(len(rs))
	return words{s + " · " + n + " member " + pluralS(len(rs), "rebalance"), s + " · " + n + " 次成员 rebalance"}
}

// axisTicks are round instants (1, 2 or 5 times a power of ten ms) across
// [lo, hi], about tlTickCount of them.
func axisTicks(lo, hi int64) []int64 {
	step := tickStep(hi - lo)
	var out []int64
	for ms := (lo + step - 1) / step * step; ms <= hi; ms += step {
		out = append(out, ms)
	}
	return out
}

func tickStep(span int64) int64 {
	for p := int64(1); p < math.MaxInt64/10; p *= 10 {
		for _, m := range []int64{1, 2, 5} {
			if span/(p*m) <= tlTickCount {
				return p * m
			}
		}
	}
	return max(1, span/tlTickCount)
}

// seconds is virtual milliseconds as the lab writes time: "1.5s".
func seconds(ms int64) string {
	return strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64) + "s"
}
