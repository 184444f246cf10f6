package web

import (
	"context"
	"strings"
	"testing"
)

// A native lesson's card says it needs the workshop server; the others
// carry no badge.
func TestCatalogueMarksNativeLessons(t *testing.T) {
	html, err := RenderString(context.Background(), LessonCatalogue([]LessonCard{
		{ID: "acks", Level: "beginner", TitleEn: "A", TitleZh: "甲"},
		{ID: "zero-copy", Level: "advanced", TitleEn: "Z", TitleZh: "乙", Native: true},
	}))
	if err != nil {
		t.Fatal(err)
	}
	acks, zero := strings.Index(html, `data-lesson-id="acks"`), strings.Index(html, `data-lesson-id="zero-copy"`)
	badge := strings.Index(html, `class="native-badge"`)
	if acks < 0 || zero < 0 || badge < zero || strings.Count(html, `class="native-badge"`) != 1 {
		t.Fatalf("the badge is not on the native lesson's card alone:\n%s", html)
	}
}
