package describe

import (
	"fmt"
	"strings"
)

// left is Java's "%-<width>s": s padded with spaces on the right to
// width characters, never cut.
func left(s string, width int) string {
	return fmt.Sprintf("%-*s", width, s)
}

// widest is the Math.max(min, length) loop Kafka runs over a column.
func widest(min int, values ...string) int {
	w := min
	for _, v := range values {
		w = max(w, len([]rune(v)))
	}
	return w
}

// row joins cells the way Kafka's format strings do: each cell padded to
// its width (0: not padded) and one space between cells.
func row(cells []string, widths []int) string {
	var b strings.Builder
	for i, c := range cells {
		if i > 0 {
			b.WriteByte(' ')
		}
		if widths[i] > 0 {
			c = left(c, widths[i])
		}
		b.WriteString(c)
	}
	return b.String()
}
