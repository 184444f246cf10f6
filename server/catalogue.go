package server

import (
	"slices"

	"github.com/loglab/loglab/lessons"
	"github.com/loglab/loglab/web"
)

// catalogueCards are the lessons as the landing page's catalogue lists
// them: grouped by module in the modules' order (lessons.Modules), each
// module's lessons in their own order, each card with its module's name
// and links to the lessons to play first.
func catalogueCards(all []*lessons.Lesson) []web.LessonCard {
	rank := map[string]int{}
	for i, m := range lessons.Modules() {
		rank[m.ID] = i
	}
	byID := map[string]*lessons.Lesson{}
	for _, l := range all {
		byID[l.ID] = l
	}
	cards := make([]web.LessonCard, 0, len(all))
	for _, l := range all {
		title := lessons.Title(l)
		card := web.LessonCard{Number: l.Order, ID: l.ID, Level: l.Level, Minutes: l.Minutes, Steps: len(l.Steps), TitleEn: title.En, TitleZh: title.Zh, Native: l.Native}
		if m, ok := lessons.ModuleByID(l.Module); ok {
			card.Module = web.CatalogueModule{ID: m.ID, En: m.Name.En, Zh: m.Name.Zh}
		}
		for _, id := range l.After {
			if p := byID[id]; p != nil { // All() checked that each exists
				card.After = append(card.After, web.LessonRef{Number: p.Order, ID: p.ID})
			}
		}
		cards = append(cards, card)
	}
	slices.SortStableFunc(cards, func(a, b web.LessonCard) int { return rank[a.Module.ID] - rank[b.Module.ID] })
	return cards
}
