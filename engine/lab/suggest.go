package lab

import (
	"fmt"
	"strings"
)

// didYouMean is the hint after an unknown command: the command closest to
// what was typed, or nothing when none is close enough to be a typo.
func didYouMean(tokens []string) string {
	if name := nearestCommand(tokens); name != "" {
		return fmt.Sprintf("; did you mean %q?", name)
	}
	return ""
}

// nearestCommand returns the command name closest to the line's first word
// (or first two words, for grouped commands) by edit distance, counting a
// swap of two letters as one edit. Only a near miss counts: at most two
// edits, and at most a third of the name, so "tick" does not suggest
// "step". Ties go to the earlier command in `help`'s order, so the hint is
// deterministic.
func nearestCommand(tokens []string) string {
	if len(tokens) == 0 {
		return ""
	}
	best, bestDist := "", 0
	for _, c := range commands {
		typed := tokens[0]
		if strings.Contains(c.name, " ") {
			if len(tokens) < 2 {
				continue
			}
			typed += " " + tokens[1]
		}
		d := editDistance(typed, c.name)
		if d > 2 || 3*d > len(c.name) {
			continue
		}
		if best == "" || d < bestDist {
			best, bestDist = c.name, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and transpositions of adjacent letters each
// cost one ("prodcue" is one edit from "produce").
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}
