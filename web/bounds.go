package web

import (
	"strconv"
	"unicode/utf8"

	"github.com/loglab/loglab/engine/view"
)

// A live page's view is rendered on every command and pushed to every
// open page, so what one partition can add to it is bounded whatever the
// log holds: one `produce` of 20,000 records of 3.9 KB once made a 28 MB
// update. The drawing summarises; the bytes stay one command away
// (`show log`, `show batch`, a click on a record).
const (
	// MaxViewBytes bounds a rendered ClusterView (TestViewStaysBounded).
	// Every element a lesson can point at names itself in full
	// (data-focus="partition TOPIC/P replica B hw"), so the worst case, a
	// 200-byte topic name on every record and replica drawn, grew by a
	// third when lessons got their focus: 1.5 MiB, not 1 MiB. Tooltips in
	// both languages (data-title-zh beside each title, static/lang.js) add
	// a tenth to that case, a record's or a replica's Chinese tooltip
	// drawn for each of hundreds: 1.75 MiB.
	MaxViewBytes = 7 << 18
	// TextShown is how many bytes of a record's key or value are drawn.
	TextShown = 64
	// IndexTicksShown is how many sparse index entries a segment draws,
	// picked evenly (its title gives the real count).
	IndexTicksShown = 12
	// SegmentsHead and SegmentsTail are the oldest and newest segment
	// files a partition draws; the ones between are counted.
	SegmentsHead, SegmentsTail = 2, 4
	// LostHead and LostTail bound the acknowledged-then-lost records drawn.
	LostHead, LostTail = 5, 5
	// ViolationsHead and ViolationsTail bound the checker's violations drawn.
	ViolationsHead, ViolationsTail = 10, 10
	// DetailShown is how many bytes of a violation's detail or a record's
	// headers are drawn (a detail may quote a record's value).
	DetailShown = 240
	// HexRowsHead and HexRowsTail are the 16-byte rows of an opened batch
	// drawn: the 61-byte header and the first records, then its end.
	HexRowsHead, HexRowsTail = 16, 4
	// BatchRecordsHead and BatchRecordsTail bound an opened batch's
	// records drawn.
	BatchRecordsHead, BatchRecordsTail = 10, 10
	// ScannedHead and ScannedTail bound the batch headers a traced offset
	// lookup draws.
	ScannedHead, ScannedTail = 10, 5
	// PartitionsDrawn is how many partitions, counted across topics in
	// order, the view draws in full; later ones are counted per topic.
	PartitionsDrawn = 24
)

// shortText is s cut to TextShown bytes (on a character boundary), saying
// how long it really is.
func shortText(s string) string { return cutText(s, TextShown) }

// cutText is s cut to n bytes (on a character boundary), saying how long
// it really is.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "… (" + strconv.Itoa(len(s)) + " bytes)"
}

// headTail splits xs into the first head and the last tail elements and
// counts the ones between them that are left out.
func headTail[T any](xs []T, head, tail int) (first, last []T, hidden int) {
	if len(xs) <= head+tail {
		return xs, nil, 0
	}
	return xs[:head], xs[len(xs)-tail:], len(xs) - head - tail
}

// indexTicks is at most IndexTicksShown of a segment's index entries,
// spread evenly over it, the first and last included.
func indexTicks(s view.Segment) []view.IndexEntry {
	n := len(s.Index)
	if n <= IndexTicksShown {
		return s.Index
	}
	ticks := make([]view.IndexEntry, IndexTicksShown)
	for i := range ticks {
		ticks[i] = s.Index[i*(n-1)/(IndexTicksShown-1)]
	}
	return ticks
}

// topicDrawing is what a topic's card draws: its partitions within the
// page's bound, and what it leaves out.
type topicDrawing struct {
	Partitions []view.Partition
	// NotDrawn counts the partitions past PartitionsDrawn; EmptyHidden an
	// internal topic's partitions left out because they hold nothing.
	NotDrawn    int
	EmptyHidden int
}

// drawTopics decides, topic by topic in order, which partitions the view
// draws. An internal topic draws only its partitions holding data and
// those coordinating a group: __consumer_offsets has 50 partitions
// (offsets.topic.num.partitions) of which a lab's few groups use one or
// two, and its empty ones would push the learner's own topics past
// PartitionsDrawn.
func drawTopics(c view.Cluster) []topicDrawing {
	out := make([]topicDrawing, len(c.Topics))
	budget := PartitionsDrawn
	for i, t := range c.Topics {
		candidates := t.Partitions
		if t.Internal {
			candidates = nil
			for _, p := range t.Partitions {
				if p.LogEndOffset > p.LogStartOffset || coordinates(c.Groups, p) {
					candidates = append(candidates, p)
				}
			}
			out[i].EmptyHidden = len(t.Partitions) - len(candidates)
		}
		n := min(len(candidates), budget)
		out[i].Partitions = candidates[:n]
		out[i].NotDrawn = len(candidates) - n
		budget -= n
	}
	return out
}

// coordinates: p is the __consumer_offsets partition a group's
// coordinator runs from.
func coordinates(groups []view.Group, p view.Partition) bool {
	if p.Topic != "__consumer_offsets" {
		return false
	}
	for _, g := range groups {
		if g.OffsetsPartition == p.Index {
			return true
		}
	}
	return false
}
