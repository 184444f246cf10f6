package e2e

import (
	"regexp"
	"testing"
)

// `net partition (c1) (c2,c3)` in the browser lab: controller 1 is cut off
// from the other controllers; the page shows controller 2 active, ctl on
// its side of the partition, controller 1 a candidate cut off from 2 and 3;
// `net heal` brings controller 1 back as a follower of 2.
func TestLabPartitionIsolatesAController(t *testing.T) {
	p := newPage(t)
	p.open(t, "/lab")
	p.command(t, "cluster brokers=3 controllers=3 seed=11")
	quorum := p.Locator("#cluster-view #quorum")
	if err := expect.Locator(quorum).ToHaveAttribute("data-active", "1"); err != nil {
		t.Fatal(err)
	}
	p.command(t, "net partition (c1) (c2,c3)")
	if err := expect.Locator(p.Locator("#transcript .entry").Last()).ToContainText("controller 2 is the active controller now"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(quorum).ToHaveAttribute("data-active", "2"); err != nil {
		t.Fatal(err)
	}
	one := quorum.Locator(`.controller-card[data-controller="1"]`)
	if err := expect.Locator(one).ToHaveAttribute("data-role", "candidate"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(one.Locator(".state.cut.isolated")).ToHaveAttribute("data-cut-from", "2,3"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(one.Locator(".state.role")).ToContainText("asking for votes in vain"); err != nil {
		t.Fatal(err)
	}
	ctl := p.Locator(`#network .node.controller[data-node="ctl"]`)
	if err := expect.Locator(ctl.Locator(".active-label")).ToHaveText("controller 2"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(p.Locator(".net-state")).ToHaveAttribute("data-network", "partitioned (c1) (c2,c3,ctl)"); err != nil {
		t.Fatal(err)
	}
	p.click(t, `.controls button[data-command="net heal"]`)
	if err := expect.Locator(one).ToHaveAttribute("data-role", "follower"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(one.Locator(".state.cut")).ToHaveCount(0); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(quorum).ToHaveAttribute("data-active", "2"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(one.Locator(".state.role")).ToHaveText(regexp.MustCompile(`^follower of 2$`), visibleText); err != nil {
		t.Fatal(err)
	}
}
