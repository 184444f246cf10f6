package web

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/view"
)

// The bar draws the driver's state for realtime.js to update: the state
// CSS shows the matching controls for, the speed, the pressed speed
// button, and why the driver paused itself; every word in both languages.
func TestRealtimeBar(t *testing.T) {
	cases := []struct {
		st      RealtimeState
		want    []string
		notWant []string
	}{
		{RealtimeState{State: "off", Speed: 1},
			[]string{`data-state="off"`, `data-rt-speed>1</span>`, `data-command="realtime on"`, `data-rt-speed-value="1" title="realtime speed=1" aria-pressed="true"`},
			[]string{`aria-pressed="true">×2`}},
		{RealtimeState{State: "on", Speed: 2},
			[]string{`data-state="on"`, `data-rt-speed>2</span>`, `data-command="realtime pause"`, `data-command="realtime speed=10"`, `data-rt-speed-value="2" title="realtime speed=2" aria-pressed="true"`},
			[]string{`data-rt-speed-value="1" title="realtime speed=1" aria-pressed="true"`}},
		{RealtimeState{State: "paused", Speed: 0.5, Reason: "the lab refused the tick: <too big>"},
			[]string{`data-state="paused"`, `data-rt-speed>0.5</span>`, `data-command="realtime resume"`, `the lab refused the tick: &lt;too big&gt;</span>`},
			[]string{`aria-pressed="true">`, "<too big>"}},
	}
	for _, c := range cases {
		html, err := RenderString(context.Background(), RealtimeBar(c.st, true))
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(html, w) {
				t.Errorf("%s: no %q in\n%s", c.st.State, w, html)
			}
		}
		for _, w := range c.notWant {
			if strings.Contains(html, w) {
				t.Errorf("%s: %q in\n%s", c.st.State, w, html)
			}
		}
		pairs := tPair.FindAllStringSubmatch(html, -1)
		if len(pairs) < 7 {
			t.Errorf("%s: %d pieces of chrome in two languages", c.st.State, len(pairs))
		}
		for _, m := range pairs {
			checkPair(t, "realtime bar", m[1], m[3])
		}
		// Every control is shown in some state, and only in known ones.
		for _, m := range regexp.MustCompile(`data-rt-when="([^"]*)"`).FindAllStringSubmatch(html, -1) {
			for _, w := range strings.Fields(m[1]) {
				if w != "off" && w != "on" && w != "paused" {
					t.Errorf("a control shown in state %q, which the driver never has", w)
				}
			}
		}
	}
}

// Every page of a cluster has the bar; only a page whose viewer may drive
// the cluster has its controls (the server refuses the others' commands
// anyway).
func TestLivePageHasTheRealtimeBar(t *testing.T) {
	for _, canDrive := range []bool{true, false} {
		html, err := RenderString(context.Background(), LivePage(view.Cluster{}, nil, LiveInfo{ClusterID: "p-0123abcd", CanDrive: canDrive}))
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []string{`id="realtime"`, `data-state="off"`, `data-rt-speed>1</span>`, `<script src="/static/realtime.js"></script>`} {
			if !strings.Contains(html, w) {
				t.Errorf("canDrive %v: the live page has no %q", canDrive, w)
			}
		}
		if controls := strings.Contains(html, `data-command="realtime `); controls != canDrive {
			t.Errorf("canDrive %v: the real-time controls are drawn: %v", canDrive, controls)
		}
	}
}
