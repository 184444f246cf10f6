package web

import (
	"context"
	"encoding/json"
	"reflect"
	"regexp"
	"testing"

	"github.com/loglab/loglab/engine/lab"
	"github.com/loglab/loglab/engine/view"
)

var commandsScript = regexp.MustCompile(`<script id="lab-commands" type="application/json">([^<]*)</script>`)

// Both consoles carry the command table they are given, the engine's, for
// console.js, as JSON that decodes back to it.
func TestConsolePagesCarryTheCommandTable(t *testing.T) {
	live := append(lab.Commands(), lab.HelpFor("realtime", "realtime [on [speed=X] | off]", "advance virtual time"))
	check := func(name, html string, want []view.CommandHelp) {
		t.Helper()
		m := commandsScript.FindStringSubmatch(html)
		if m == nil {
			t.Fatalf("%s: no <script id=\"lab-commands\"> in the page", name)
		}
		var got []view.CommandHelp
		if err := json.Unmarshal([]byte(m[1]), &got); err != nil {
			t.Fatalf("%s: lab-commands is not JSON: %v", name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: lab-commands = %+v\nwant %+v", name, got, want)
		}
	}
	html, err := RenderString(context.Background(), LabPage("", lab.Commands()))
	if err != nil {
		t.Fatal(err)
	}
	check("/lab", html, lab.Commands())
	html, err = RenderString(context.Background(), LivePage(view.Cluster{}, nil, LiveInfo{ClusterID: "live", Commands: live}))
	if err != nil {
		t.Fatal(err)
	}
	check("/live", html, live)
}
