package lab

import "strings"

// prettyTable lays rows out as Kafka's tools do (ToolsUtils.prettyPrintTable):
// each column padded with spaces to its widest value, columns separated by
// a tab. Kafka also ends every line with a tab; the lab leaves it out so
// that transcripts carry no invisible trailing whitespace.
func prettyTable(headers []string, rows [][]string) string {
	widths := make([]int, len(headers))
	for i, h := range headers {
		widths[i] = len(h)
	}
	for _, row := range rows {
		for i, v := range row {
			widths[i] = max(widths[i], len(v))
		}
	}
	var b strings.Builder
	line := func(row []string) {
		for i, v := range row {
			if i > 0 {
				b.WriteByte('\t')
			}
			b.WriteString(v)
			if i < len(row)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-len(v)))
			}
		}
	}
	line(headers)
	for _, row := range rows {
		b.WriteByte('\n')
		line(row)
	}
	return b.String()
}
