package e2e

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// A partition that cuts the active controller off from the other two, in
// the browser lab, step by step in virtual time as KRaft goes: at first
// nothing changes but the cut (the leader still leads); after
// controller.quorum.fetch.timeout.ms the two others are Prospective
// (asking for pre-votes); then the cut-off leader resigns (check-quorum)
// and one of the two wins a new epoch and becomes the active controller,
// ctl on its side of the partition. `net heal` and a tick bring the old
// leader back as a Follower of the new one, in its epoch, at its high
// watermark.
func TestLabPartitionIsolatesAController(t *testing.T) {
	t.Parallel()
	p := newPage(t)
	p.open(t, "/lab")
	p.command(t, "cluster brokers=3 controllers=3 seed=11")
	if err := expect.Locator(p.Locator("#transcript .entry").Last()).ToContainText("cluster started: brokers=3 controllers=3 seed=11"); err != nil {
		t.Fatal(err)
	}
	quorum := p.Locator("#cluster-view #quorum")
	if err := expect.Locator(quorum).ToHaveAttribute("data-active", regexp.MustCompile(`^[123]$`)); err != nil {
		t.Fatal(err)
	}
	old := p.attr(t, quorum, "data-active")
	var others []string
	for _, id := range []string{"1", "2", "3"} {
		if id != old {
			others = append(others, id)
		}
	}
	card := func(id string) playwright.Locator {
		return quorum.Locator(fmt.Sprintf(`.controller-card[data-controller="%s"]`, id))
	}
	oldEpoch := p.attrInt(t, card(old), "data-epoch")

	p.command(t, fmt.Sprintf("net partition (c%s) (c%s,c%s)", old, others[0], others[1]))
	if err := expect.Locator(p.Locator(".net-state")).ToHaveAttribute("data-network", fmt.Sprintf("partitioned (ctl,ctl%s) (ctl%s,ctl%s)", old, others[0], others[1])); err != nil {
		t.Fatal(err)
	}
	// No virtual time passed: the leader is cut off, and still leads.
	if err := expect.Locator(card(old).Locator(".state.cut.isolated")).ToHaveAttribute("data-cut-from", others[0]+","+others[1]); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(card(old)).ToHaveAttribute("data-role", "leader"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(card(old).Locator(".state.role")).ToHaveText("Leader · active controller", visibleText); err != nil {
		t.Fatal(err)
	}

	// The fetch timeout passes: the two others ask for pre-votes.
	p.command(t, "tick 2s")
	for _, id := range others {
		if err := expect.Locator(card(id)).ToHaveAttribute("data-role", "prospective"); err != nil {
			t.Fatal(err)
		}
		if err := expect.Locator(card(id).Locator(".state.role")).ToContainText("Prospective"); err != nil {
			t.Fatal(err)
		}
	}
	if err := expect.Locator(quorum).ToHaveAttribute("data-active", old); err != nil {
		t.Fatal(err)
	}

	// Check-quorum: the cut-off leader resigns; the majority side elects.
	p.command(t, "tick 2s")
	if err := expect.Locator(p.Locator("#transcript .entry").Last()).ToContainText("is the active controller now"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(quorum).ToHaveAttribute("data-active", regexp.MustCompile(`^[`+others[0]+others[1]+`]$`)); err != nil {
		t.Fatal(err)
	}
	next := p.attr(t, quorum, "data-active")
	if err := expect.Locator(card(next)).ToHaveAttribute("data-role", "leader"); err != nil {
		t.Fatal(err)
	}
	if epoch := p.attrInt(t, card(next), "data-epoch"); epoch <= oldEpoch {
		t.Errorf("the new leader's epoch is %d, the old one's was %d", epoch, oldEpoch)
	}
	if err := expect.Locator(card(old)).ToHaveAttribute("data-role", "resigned"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(card(old).Locator(".state.role")).ToContainText("Resigned"); err != nil {
		t.Fatal(err)
	}
	ctl := p.Locator(`#network .node.controller[data-alias="ctl"]`)
	if err := expect.Locator(ctl.Locator(".active-label")).ToHaveText("controller " + next); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(p.Locator(".net-state")).ToHaveAttribute("data-network", fmt.Sprintf("partitioned (ctl%s) (ctl,ctl%s,ctl%s)", old, others[0], others[1])); err != nil {
		t.Fatal(err)
	}

	// Healed, the old leader fetches from the new one and follows it.
	p.click(t, `.controls button[data-command="net heal"]`)
	if err := expect.Locator(card(old).Locator(".state.cut")).ToHaveCount(0); err != nil {
		t.Fatal(err)
	}
	p.command(t, "tick 1s")
	if err := expect.Locator(card(old)).ToHaveAttribute("data-role", "follower"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(card(old).Locator(".state.role")).ToHaveText("Follower of "+next, visibleText); err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{"data-epoch", "data-high-watermark"} {
		if err := expect.Locator(card(old)).ToHaveAttribute(a, p.attr(t, card(next), a)); err != nil {
			t.Fatalf("%s: %v", a, err)
		}
	}
	if err := expect.Locator(quorum).ToHaveAttribute("data-active", next); err != nil {
		t.Fatal(err)
	}
}
