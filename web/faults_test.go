package web

import (
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/view"
)

// Every link drawn is a button that emits the lab command cutting it, in
// the lab's names (brokers by id, ctl, clients by name); once cut, the
// same link heals, and the cut link is drawn across even with no message.
func TestLinksCutAndHealOnClick(t *testing.T) {
	c := failover()
	html := render(t, c)
	cases := []struct{ from, to, want string }{
		{"b1", "b3", "net cut 1 3"},
		{"b3", "b1", "net cut 3 1"},
		{"ctl", "b2", "net cut ctl 2"},
		{"fast", "b2", "net cut fast 2"},
	}
	for _, tc := range cases {
		g := element(t, html, `<g class="link[^"]*" data-from="`+tc.from+`" data-to="`+tc.to+`"[^>]*>(?s:.*?)</g>`)
		hit := element(t, g, `<path class="link-hit"[^>]*>`)
		if got := attrOf(hit, "data-command"); got != tc.want {
			t.Errorf("link %s->%s emits %q, want %q", tc.from, tc.to, got, tc.want)
		}
		if attrOf(hit, "role") != "button" || attrOf(hit, "aria-label") == "" {
			t.Errorf("link %s->%s is not an accessible button: %s", tc.from, tc.to, hit)
		}
	}
	// The two arrows of b1-b3 take one tab stop between them.
	stops := 0
	for _, tag := range startTags(html, `<path class="link-hit"[^>]*>`) {
		if attrOf(tag, "tabindex") == "0" && (strings.Contains(attrOf(tag, "data-command"), " 1 3") || strings.Contains(attrOf(tag, "data-command"), " 3 1")) {
			stops++
		}
	}
	if stops != 1 {
		t.Errorf("the link b1-b3 has %d tab stops, want 1", stops)
	}
	if strings.Contains(html, `class="cut-link"`) {
		t.Error("a cut link is drawn with no link cut")
	}

	c.CutLinks = []view.Link{{A: "b1", B: "b3"}, {A: "b3", B: "fast"}}
	html = render(t, c)
	g := element(t, html, `<g class="link[^"]*" data-from="b3" data-to="b1"[^>]*>(?s:.*?)</g>`)
	if got := attrOf(element(t, g, `<path class="link-hit"[^>]*>`), "data-command"); got != "net heal 3 1" {
		t.Errorf("a cut link's arrow emits %q, want net heal 3 1", got)
	}
	if !strings.Contains(element(t, html, `<g class="link[^"]*" data-from="b3" data-to="b1"`), " cut") {
		t.Error("the arrow across a cut link is not classed cut")
	}
	for _, want := range []struct{ a, b, cmd string }{{"b1", "b3", "net heal 1 3"}, {"b3", "fast", "net heal 3 fast"}} {
		cut := element(t, html, `<g class="cut-link" data-a="`+want.a+`" data-b="`+want.b+`"[^>]*>`)
		if attrOf(cut, "data-command") != want.cmd || attrOf(cut, "role") != "button" || attrOf(cut, "tabindex") != "0" {
			t.Errorf("cut link %s-%s: %s, want a button emitting %q", want.a, want.b, cut, want.cmd)
		}
	}
}

// The packet of a message in flight drops that message by its number, and
// the message log numbers every message and offers the same drop.
func TestPacketInFlightDropsThatMessage(t *testing.T) {
	html := render(t, failover())
	packet := element(t, html, `<circle class="packet"[^>]*>`)
	if attrOf(packet, "data-command") != "net drop id=9" || attrOf(packet, "data-message-id") != "9" || attrOf(packet, "role") != "button" {
		t.Errorf("packet %s, want a button emitting net drop id=9", packet)
	}
	drops := startTags(html, `<button type="button" class="fault msg-drop"[^>]*>`)
	if len(drops) != 1 || attrOf(drops[0], "data-command") != "net drop id=9" {
		t.Errorf("message log drop buttons %v, want one for message 9", drops)
	}
	if !strings.Contains(html, `<span class="msg-id">#6</span>`) {
		t.Error("the message log does not number a dropped message")
	}
}

// A consumer's card crashes it, or restarts it once it is down; a group
// member's card offers the same for the member of the running process.
func TestConsumersCrashAndRestartOnClick(t *testing.T) {
	c := twoGroups()
	c.ClientNodes = append(c.ClientNodes, view.Client{Name: "c1", Kind: "consumer"}, view.Client{Name: "c2", Kind: "consumer", Down: true}, view.Client{Name: "c3", Kind: "consumer"})
	c.Groups[0].Members[1].Phase = "crashed"
	// c3 crashed and restarted: the coordinator still holds its old member.
	c.Groups[0].Members = append(c.Groups[0].Members, view.GroupMember{MemberID: "c3-old", Client: "c3", Phase: "crashed", Colour: 3})
	html := render(t, c)
	if got := attrOf(element(t, html, `<div class="node client consumer"[^>]*data-node="c1"[^>]*>(?s:.*?)<button[^>]*>`), "data-command"); !strings.HasSuffix(got, "consumer crash c1") {
		t.Errorf("running consumer's card emits %q, want consumer crash c1", got)
	}
	if got := attrOf(element(t, html, `<div class="node client consumer down"[^>]*data-node="c2"[^>]*>(?s:.*?)<button[^>]*>`), "data-command"); got != "consumer restart c2" {
		t.Errorf("crashed consumer's card emits %q, want consumer restart c2", got)
	}
	for _, tc := range []struct{ member, want string }{
		{"c1-5b3e1f0c-9d2a-4c4e-8f00-1a2b3c4d5e6f", "consumer crash c1"},
		{"c2-77aa01bc-0000-4000-8000-000000000002", "consumer restart c2"},
		{"c3-0c0ffee0-0000-4000-8000-000000000003", "consumer crash c3"},
		{"c3-old", ""},
	} {
		card := element(t, html, `data-member-id="`+tc.member+`"(?s:.*?)class="member-partitions"`)
		got := ""
		if b := startTags(card, `<button[^>]*member-fault[^>]*>`); len(b) > 0 {
			got = attrOf(b[0], "data-command")
		}
		if got != tc.want {
			t.Errorf("member %s offers %q, want %q", tc.member, got, tc.want)
		}
	}
}

func TestMemberFault(t *testing.T) {
	c := view.Cluster{ClientNodes: []view.Client{{Name: "up", Kind: "consumer"}, {Name: "down", Kind: "consumer", Down: true}, {Name: "p", Kind: "producer"}}}
	cases := []struct {
		client, phase, want string
	}{
		{"up", "stable", "consumer crash up"},
		{"up", "joining", "consumer crash up"},
		{"up", "crashed", ""}, // an earlier process's member, left behind
		{"down", "crashed", "consumer restart down"},
		{"down", "left", "consumer restart down"},
		{"down", "stable", ""}, // the view disagrees with itself: offer nothing
		{"p", "stable", ""},
		{"unknown", "stable", ""},
	}
	for _, tc := range cases {
		if got := memberFault(c, view.GroupMember{Client: tc.client, Phase: tc.phase}); got != tc.want {
			t.Errorf("memberFault(%s, %s) = %q, want %q", tc.client, tc.phase, got, tc.want)
		}
	}
}
