package web

import (
	"cmp"
	"math"
	"slices"
	"strconv"

	"github.com/loglab/loglab/engine/view"
)

// The partition ownership rows of the rebalance timeline: under a group's
// member rows, one row per partition of its topics, on the same axis,
// saying who owned the partition when and how long nobody did. A member's
// row cannot say that: a cooperative or KIP-848 member keeps consuming
// the partitions it keeps, so its bar never pauses, while a partition it
// revoked is consumed by nobody until a later rebalance assigns it. Laid
// out here; groups.templ only draws.

// Ownership row geometry, in SVG user units.
const (
	owHeadH  = 22.0 // the rows' sub-heading
	owRowH   = 30.0
	owBarTop = 15.0 // from a row's top to its bar
	owBarH   = 13.0
	owNameCW = 6.1 // a 10.5-unit Latin character of an owner's name, inside its bar
	// OwnershipRowsShown bounds the partition rows a group draws; the rest
	// are counted (the partitions table lists every owner).
	OwnershipRowsShown = 16
)

// owRow is one partition's history.
type owRow struct {
	TP    string
	Label string // the partition's name, cut to the label column
	Y     float64
	Spans []owSpan
	// Longest is the longest ownerless stretch drawn, in ms (-1: none);
	// State the row's data-focus-state: it in whole seconds, rounded as
	// the lessons' `pause` check rounds, or "none".
	Longest int64
	State   string
}

// owSpan is one owner's stretch, or a stretch of nobody (Gap).
type owSpan struct {
	X, W      float64
	Owner     string
	Colour    int
	Gap       bool
	Ms        int64
	Open      bool  // still so now
	Label     words // a gap's length, written above the bar
	LabelX    float64
	ShowLabel bool
	// NameInside: the owner's name fits inside its stretch, where it is
	// written (a stretch too short has it in its <title>).
	NameInside bool
	Title      string
}

// layoutOwnership lays out the partition rows of group g from y down;
// it returns them, the height they take and how many were left out.
func layoutOwnership(g view.Group, y float64, now, lo, hi int64, x func(int64) float64, plotLeft, plotRight float64) ([]owRow, float64, int) {
	var hist []view.PartitionOwnership
	for _, o := range g.Ownership {
		if len(o.Spans) > 0 {
			hist = append(hist, o)
		}
	}
	if len(hist) == 0 {
		return nil, 0, 0
	}
	hidden := max(0, len(hist)-OwnershipRowsShown)
	hist = hist[:len(hist)-hidden]
	rows := make([]owRow, 0, len(hist))
	for i, o := range hist {
		r := owRow{TP: o.TP, Label: cutLabel(o.TP, tlLabelW-16), Y: y + owHeadH + float64(i)*owRowH, Longest: -1}
		for _, s := range o.Spans {
			to := s.To
			if to < 0 {
				to = max(now, s.From)
			}
			if to < lo || s.From > hi {
				continue // off the axis: older than the rebalances drawn
			}
			sp := owSpan{X: x(s.From), W: max(x(to)-x(s.From), tlMinBarW), Owner: s.Owner, Colour: s.Colour,
				Gap: s.Owner == "", Ms: to - s.From, Open: s.To < 0}
			sp.LabelX = sp.X
			if sp.Gap {
				sp.Label = gapWords(sp.Ms, sp.Open)
				r.Longest = max(r.Longest, sp.Ms)
			} else {
				sp.NameInside = float64(len([]rune(s.Owner)))*owNameCW+8 <= sp.W
			}
			sp.Title = spanTitle(o.TP, s, to)
			r.Spans = append(r.Spans, sp)
		}
		r.State = "none"
		if r.Longest >= 0 {
			r.State = strconv.Itoa(int(math.Round(float64(r.Longest) / 1000)))
		}
		placeOwnershipLabels(r.Spans, plotLeft, plotRight)
		rows = append(rows, r)
	}
	return rows, owHeadH + float64(len(rows))*owRowH, hidden
}

// gapWords is an ownerless stretch's label: milliseconds under a second
// (eager's few-ms handovers), seconds to a tenth above, which a question
// asking for whole seconds rounds.
func gapWords(ms int64, open bool) words {
	n := strconv.FormatInt(ms, 10) + " ms"
	if ms >= 1000 {
		n = strconv.FormatFloat(float64(ms)/1000, 'f', 1, 64) + " s"
	}
	if open {
		return words{"no owner for " + n + " so far", "已 " + n + " 没有属主，仍在继续"}
	}
	return words{"no owner for " + n, n + " 没有属主"}
}

// spanTitle is a stretch's text alternative, in both languages (an SVG
// <title> cannot follow the language switch).
func spanTitle(tp string, s view.OwnershipSpan, to int64) string {
	d := strconv.FormatInt(to-s.From, 10)
	if s.Owner != "" {
		return tp + " · owned by " + s.Owner + " from " + seconds(s.From) + " for " + d + " ms\n" +
			tp + " · 从 " + seconds(s.From) + " 起由 " + s.Owner + " 拥有 " + d + " ms"
	}
	why, whyZh := "revoked", "被撤销"
	if s.Lost {
		why, whyZh = "lost by its owner (fenced or expired)", "被属主丢失（被 fence 或过期）"
	}
	return tp + " · " + why + " at " + seconds(s.From) + ": owned by no member, so consumed by nobody, for " + d + " ms, until a rebalance assigned it again\n" +
		tp + " · 在 " + seconds(s.From) + " " + whyZh + "：" + d + " ms 内不属于任何成员，也就没有人消费它，直到一次 rebalance 再次分配它"
}

// placeOwnershipLabels writes the gaps' lengths above the bar where they
// fit, longest first (the number a question asks for is never the one
// left out), each only where it overlaps no label already written. A
// label that would run past the axis ends there.
func placeOwnershipLabels(spans []owSpan, plotLeft, plotRight float64) {
	var order []int
	for i, s := range spans {
		if s.Gap {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(spans[b].Ms, spans[a].Ms) })
	type taken struct{ a, z float64 }
	var used []taken
	for _, i := range order {
		s := &spans[i]
		w := labelWidth(s.Label)
		s.LabelX = max(plotLeft, min(s.LabelX, plotRight-w))
		a, z := s.LabelX, s.LabelX+w+6
		if slices.ContainsFunc(used, func(t taken) bool { return a < t.z && t.a < z }) {
			continue
		}
		s.ShowLabel = true
		used = append(used, taken{a, z})
	}
}

// cutLabel shortens a name to a width of Latin characters, with "…".
func cutLabel(s string, width float64) string {
	r := []rune(s)
	n := int(width / tlLabelCW)
	if len(r) <= n || n < 2 {
		return s
	}
	return string(r[:n-1]) + "…"
}

// ownershipHead is the line above a group's partition rows.
func ownershipHead(hidden int) words {
	w := words{"partitions: who owned each, hatched while nobody did", "分区：各自的属主，斜线处表示没有属主"}
	if hidden > 0 {
		n := strconv.Itoa(hidden)
		w.en += " (" + n + " more not drawn)"
		w.zh += "（还有 " + n + " 个未画出）"
	}
	return w
}
