package web

import (
	"context"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/view"
)

// Opening a lesson moves everyone watching the cluster: only its driver's
// page has the Lessons menu. Every page has the player, which a lesson
// opened by the driver fills in (a watcher's without the driver's moves:
// static/lesson.js), and says whether its viewer drives (data-can-drive,
// which the player reads).
func TestOnlyTheDriversLivePageOpensLessons(t *testing.T) {
	for _, canDrive := range []bool{true, false} {
		html, err := RenderString(context.Background(), LivePage(view.Cluster{}, nil, LiveInfo{ClusterID: "live", CanDrive: canDrive}))
		if err != nil {
			t.Fatal(err)
		}
		if menu := strings.Contains(html, `id="lesson-menu"`); menu != canDrive {
			t.Errorf("canDrive %v: the lesson menu is drawn: %v", canDrive, menu)
		}
		for _, w := range []string{`id="lesson"`, `id="lesson-ask"`, `data-can-drive="` + map[bool]string{true: "true", false: "false"}[canDrive] + `"`} {
			if !strings.Contains(html, w) {
				t.Errorf("canDrive %v: the live page has no %q", canDrive, w)
			}
		}
	}
}
