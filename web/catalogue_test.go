package web

import (
	"context"
	"strings"
	"testing"
)

// The catalogue numbers its lessons as narration and trainers do ("lesson
// 19"), in the order given.
func TestCatalogueNumbersTheLessons(t *testing.T) {
	html, err := RenderString(context.Background(), LessonCatalogue([]LessonCard{
		{Number: 1, ID: "log-not-a-queue", Level: "beginner", Minutes: 10, Steps: 5, TitleEn: "A log", TitleZh: "日志"},
		{Number: 19, ID: "idempotent-producer", Level: "intermediate", Minutes: 12, Steps: 6, TitleEn: "Idempotence", TitleZh: "幂等"},
	}))
	if err != nil {
		t.Fatal(err)
	}
	first := strings.Index(html, `<span class="lesson-number">1</span>`)
	second := strings.Index(html, `<span class="lesson-number">19</span>`)
	if first < 0 || second < 0 || second < first {
		t.Fatalf("the cards are not numbered 1 then 19:\n%s", html)
	}
}
