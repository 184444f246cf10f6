package lessons

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// readmeLessonsTable is where the README lists the lessons: the table
// under this heading, one row per lesson in the catalogue's order.
const readmeLessonsHeading = "## Lessons"

// The README's lessons table is the catalogue: one row per lesson, in
// All()'s order, numbered by its order, titled with its title.en, linked to
// its file, with its module, level and minutes. A lesson added, removed, renumbered
// or retitled without the README fails here.
func TestReadmeLessonsTable(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := readmeLessonRows(string(readme))
	if err != nil {
		t.Fatal(err)
	}
	all, err := All()
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range all {
		want := readmeRowFor(l)
		if i >= len(rows) {
			t.Errorf("README.md's lessons table has no row for %s; add\n%s", l.File, want.String())
			continue
		}
		if got := rows[i]; got != want {
			t.Errorf("README.md's lessons table, row %d:\n  got  %s\n  want %s", i+1, got.String(), want.String())
		}
	}
	for _, extra := range rows[min(len(rows), len(all)):] {
		t.Errorf("README.md's lessons table lists %s, which is no lesson in lessons/ (or a second row for one)", extra.String())
	}
}

// readmeRow is one row of the table: | # | [title](lessons/FILE) | module | level | minutes |.
type readmeRow struct {
	Number  string
	Title   string
	File    string
	Module  string
	Level   string
	Minutes string
}

func (r readmeRow) String() string {
	return fmt.Sprintf("| %s | [%s](lessons/%s) | %s | %s | %s |", r.Number, r.Title, r.File, r.Module, r.Level, r.Minutes)
}

func readmeRowFor(l *Lesson) readmeRow {
	level := l.Level
	if l.Native {
		level += " (workshop server)"
	}
	return readmeRow{Number: strconv.Itoa(l.Order), Title: l.Title.En, File: l.File, Module: l.Module, Level: level, Minutes: strconv.Itoa(l.Minutes)}
}

// readmeLessonRows parses the first table after the "## Lessons" heading,
// stopping at the next heading. A cell's Markdown escapes (\_, \|) are
// undone, so a title may be escaped where Markdown would misread it.
func readmeLessonRows(readme string) ([]readmeRow, error) {
	_, section, ok := strings.Cut(readme, "\n"+readmeLessonsHeading+"\n")
	if !ok {
		return nil, fmt.Errorf("README.md has no %q heading", readmeLessonsHeading)
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	var rows []readmeRow
	inTable, header := false, 0
	for n, line := range strings.Split(section, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break // the first table ended
			}
			continue
		}
		inTable = true
		if header < 2 { // the header row and its |---| line
			header++
			continue
		}
		cells := tableCells(line)
		if len(cells) != 5 {
			return nil, fmt.Errorf("README.md's lessons table, line %d after the heading: %d cells, want 5 (# | lesson | module | level | minutes): %s", n, len(cells), line)
		}
		title, file, ok := markdownLink(cells[1])
		if !ok {
			return nil, fmt.Errorf("README.md's lessons table: %q is not a link [title](lessons/FILE)", cells[1])
		}
		rows = append(rows, readmeRow{Number: cells[0], Title: title, File: strings.TrimPrefix(file, "lessons/"), Module: cells[2], Level: cells[3], Minutes: cells[4]})
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("README.md has no table under %q", readmeLessonsHeading)
	}
	return rows, nil
}

// tableCells splits a Markdown table row at its unescaped pipes, trims
// each cell and undoes its backslash escapes.
func tableCells(line string) []string {
	line = strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|")
	var cells []string
	var cell strings.Builder
	escaped := false
	for _, r := range line {
		switch {
		case escaped:
			cell.WriteRune(r)
			escaped = false
		case r == '\\':
			escaped = true
		case r == '|':
			cells = append(cells, strings.TrimSpace(cell.String()))
			cell.Reset()
		default:
			cell.WriteRune(r)
		}
	}
	return append(cells, strings.TrimSpace(cell.String()))
}

// markdownLink splits "[text](target)".
func markdownLink(s string) (text, target string, ok bool) {
	if !strings.HasPrefix(s, "[") || !strings.HasSuffix(s, ")") {
		return "", "", false
	}
	i := strings.LastIndex(s, "](")
	if i < 0 {
		return "", "", false
	}
	return s[1:i], s[i+2 : len(s)-1], true
}

func TestReadmeLessonRowsParse(t *testing.T) {
	rows, err := readmeLessonRows("x\n## Lessons\n\nprose\n\n| # | lesson | module | level | minutes |\n|---:|---|---|---|---:|\n" +
		"| 18 | [\\_\\_consumer\\_offsets: a \\| b](lessons/18-x.lesson) | consumer-groups | advanced | 15 |\n\nafter\n| not | a | row | here | x |\n## Next\n")
	if err != nil {
		t.Fatal(err)
	}
	want := readmeRow{Number: "18", Title: "__consumer_offsets: a | b", File: "18-x.lesson", Module: "consumer-groups", Level: "advanced", Minutes: "15"}
	if len(rows) != 1 || rows[0] != want {
		t.Errorf("rows = %+v, want [%+v]", rows, want)
	}
	if _, err := readmeLessonRows("## Lessons\n\n| # | lesson | module | level | minutes |\n|---|---|---|---|---|\n| 1 | no link | storage | beginner | 5 |\n"); err == nil {
		t.Error("a row without a link parsed")
	}
}
