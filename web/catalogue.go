package web

import "strconv"

// LessonCard is one lesson as the catalogue lists it. The driver fills it
// from lessons.Render; web does not import lessons, whose tests render
// this package's views to check a step's focus.
type LessonCard struct {
	// Number is the lesson's place in the catalogue (its `order:`), the
	// number narration and trainers use ("lesson 19").
	Number  int
	ID      string
	Level   string
	Minutes int
	Steps   int
	// TitleEn and TitleZh are the title as HTML, rendered from the
	// lesson's Markdown without raw HTML (lessons.Render).
	TitleEn string
	TitleZh string
	// Native: the lesson needs the workshop server (`mode: native`); the
	// card says so, since the browser lab refuses to open it.
	Native bool
	// Module is the part of the catalogue the card is listed under
	// (`module:`); the catalogue groups the cards by it, the modules in
	// the order of their first card, so the driver passes the cards
	// sorted by module, each module's in the lessons' order.
	Module CatalogueModule
	// After are the lessons to play first (`after:`), drawn as links to
	// their cards: "after 4, 5".
	After []LessonRef
}

// CatalogueModule is a module's id and its name in both languages.
type CatalogueModule struct {
	ID     string
	En, Zh string
}

// LessonRef points at another lesson of the catalogue by its number and id.
type LessonRef struct {
	Number int
	ID     string
}

// moduleGroup is one module's heading and cards.
type moduleGroup struct {
	Module  CatalogueModule
	Cards   []LessonCard
	Minutes int  // the module's lessons' minutes added up, for planning
	Native  bool // one of its lessons needs the workshop server
}

// groupByModule groups the cards by module, in the order of each
// module's first card, each module's cards in the order given. Cards
// without a module form a group of their own, drawn without a heading.
func groupByModule(cards []LessonCard) []moduleGroup {
	var groups []moduleGroup
	at := map[string]int{}
	for _, c := range cards {
		i, ok := at[c.Module.ID]
		if !ok {
			i = len(groups)
			at[c.Module.ID] = i
			groups = append(groups, moduleGroup{Module: c.Module})
		}
		g := &groups[i]
		g.Cards = append(g.Cards, c)
		g.Minutes += c.Minutes
		g.Native = g.Native || c.Native
	}
	return groups
}

// cardAnchor is a card's id in the page, the target of the links from the
// lessons that come after it.
func cardAnchor(id string) string { return "lesson-" + id }

// moduleSummary says how many lessons a module holds and how long they take.
func moduleSummary(g moduleGroup) (en, zh string) {
	n, m := strconv.Itoa(len(g.Cards)), strconv.Itoa(g.Minutes)
	en = n + " lessons · " + m + " min"
	if len(g.Cards) == 1 {
		en = "1 lesson · " + m + " min"
	}
	return en, n + " 节课 · " + m + " 分钟"
}

// listSep is what goes before the i-th item of a list: nothing before the
// first.
func listSep(i int, sep string) string {
	if i == 0 {
		return ""
	}
	return sep
}
