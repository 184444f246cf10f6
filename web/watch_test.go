package web

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/view"
)

// A viewer who may not drive the cluster gets a console that says so: the
// input stays disabled (app.js leaves it so), with a note in both
// languages saying who runs commands here and where the viewer's own
// cluster is; and the workspace carries data-can-drive, which the page's
// CSS hides the view's command buttons by (the view's fragments are the
// same bytes for every viewer, so the hiding cannot live in them). A
// driver's console has no note.
func TestAViewersConsoleSaysWhoDrives(t *testing.T) {
	input := regexp.MustCompile(`<input id="command"[^>]*>`)
	cases := []struct {
		name  string
		info  LiveInfo
		notes []string
	}{
		{"instructor's cluster, no own cluster", LiveInfo{ClusterID: "live"},
			[]string{"Only the instructor runs commands here", "这里只有讲师能执行命令", "Open my own cluster", "打开我自己的集群"}},
		{"instructor's cluster, with an own cluster", LiveInfo{ClusterID: "live", OwnCluster: "p-1"},
			[]string{"Only the instructor runs commands here", "My own cluster", "我的集群"}},
		{"another participant's cluster", LiveInfo{ClusterID: "p-2", OwnerName: "Ada"},
			[]string{"Only Ada runs commands here", "这里只有 Ada 能执行命令", "Open my own cluster"}},
	}
	for _, c := range cases {
		html, err := RenderString(context.Background(), LivePage(view.Cluster{}, nil, c.info))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(html, `<main class="workspace" data-cluster="`+c.info.ClusterID+`" data-can-drive="false"`) {
			t.Errorf("%s: the workspace does not say the viewer watches", c.name)
		}
		in := input.FindString(html)
		for _, w := range []string{" disabled", `aria-describedby="watch-note"`, `placeholder="watching: only `, `data-placeholder-zh="观看中：只有`} {
			if !strings.Contains(in, w) {
				t.Errorf("%s: the console's input %s has no %q", c.name, in, w)
			}
		}
		if !strings.Contains(html, `id="watch-note"`) {
			t.Fatalf("%s: no note in the console", c.name)
		}
		note := html[strings.Index(html, `id="watch-note"`):]
		note = note[:strings.Index(note, "</p>")]
		for _, w := range c.notes {
			if !strings.Contains(note, w) {
				t.Errorf("%s: the note %q does not say %q", c.name, note, w)
			}
		}
	}

	html, err := RenderString(context.Background(), LivePage(view.Cluster{}, nil, LiveInfo{ClusterID: "live", CanDrive: true, Instructor: true}))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(html, "watch-note") || !strings.Contains(html, `data-can-drive="true"`) {
		t.Error("the driver's console has a watcher's note, or the workspace does not say they drive")
	}
	if in := input.FindString(html); !strings.Contains(in, `placeholder="loading… then try`) || !strings.Contains(in, "data-placeholder-zh=") {
		t.Errorf("the driver's console input: %s", in)
	}
}
