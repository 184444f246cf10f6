package server

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/loglab/loglab/web"
)

// The live session's bounds on what it sends: every command's update goes
// to every open page, and every page load replays the history. One command
// (a 20,000-record produce, a `show log` of it) once made a 28 MB update.
const (
	// maxViewBytes bounds the rendered cluster view: web's TextShown,
	// SegmentsHead/Tail, IndexTicksShown, PartitionsDrawn and the others
	// keep it so (web's TestViewStaysBounded).
	maxViewBytes = web.MaxViewBytes
	// maxEntryOutput is how much of a command's output the transcript
	// entry keeps (its head and tail) in the history and the update;
	// POST /api/command still answers with all of it.
	maxEntryOutput  = 8 << 10
	entryOutputTail = 2 << 10
	// maxHistoryBytes bounds the commands and outputs a page load
	// replays, on top of historyShown entries.
	maxHistoryBytes = 256 << 10
	// maxUpdateBytes, maxPageHistoryBytes and maxPageBytes are what the
	// above add up to, markup, HTML escaping and the page's frame
	// included.
	maxUpdateBytes      = maxViewBytes + 2*(maxEntryOutput+maxCommandMessage)
	maxPageHistoryBytes = 2*maxHistoryBytes + 64<<10
	maxPageBytes        = maxViewBytes + maxPageHistoryBytes
)

// shownEntry is e as the history and the updates keep it: an output over
// maxEntryOutput keeps its head and its last entryOutputTail bytes (a
// long `show log` ends with its newest records), cut on line boundaries
// where there are some, and says how much it left out.
func shownEntry(e web.Entry) web.Entry {
	if len(e.Output) <= maxEntryOutput {
		return e
	}
	out := e.Output
	head := lineStart(out, maxEntryOutput-entryOutputTail)
	tail := lineStart(out, len(out)-entryOutputTail)
	if tail < head {
		tail = head
	}
	cut := out[head:tail]
	e.Output = fmt.Sprintf("%s… %d bytes cut (%d lines): the live page keeps the head and tail of an output; POST /api/command answers with all of it …\n%s",
		out[:head], len(cut), strings.Count(cut, "\n"), out[tail:])
	return e
}

// lineStart is the start of the line holding byte i of s (i itself when
// that line is very long), never inside a UTF-8 character.
func lineStart(s string, i int) int {
	if j := strings.LastIndexByte(s[:i], '\n'); j >= 0 && i-j < 512 {
		return j + 1
	}
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// trimHistory drops the oldest entries beyond historyShown and beyond
// maxHistoryBytes, keeping at least the newest.
func trimHistory(h []web.Entry) []web.Entry {
	keep, size := 0, 0
	for i := len(h) - 1; i >= 0 && keep < historyShown; i-- {
		size += len(h[i].Command) + len(h[i].Output)
		if size > maxHistoryBytes && keep > 0 {
			break
		}
		keep++
	}
	if keep == len(h) {
		return h
	}
	return append([]web.Entry(nil), h[len(h)-keep:]...)
}
