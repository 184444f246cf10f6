package e2e

import (
	"fmt"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// Restart limbo in the browser: a learner crashes the leader of orders/0
// and restarts it at once. The metadata still names it leader until its
// previous run's session expires, so every panel must say the broker is
// registering and has no replica yet (not "follower", not "leads
// orders/0"), and clicking a record must open its batch from the replica
// whose log is shown instead of failing. After the session timeout the
// controller elects another leader and the restarted broker comes back as
// a follower: the panels agree again at every click.
func TestLabRestartLimboIsConsistent(t *testing.T) {
	t.Parallel()
	p := newPage(t)
	p.open(t, "/lab")
	p.command(t, "cluster brokers=3 controllers=3 seed=7")
	p.command(t, "topic create orders rf=3")
	p.command(t, "produce orders key=k{i} value=v{i} count=3")
	if err := expect.Locator(p.Locator("#transcript .entry").Last()).ToContainText("produced 3 records to orders/0"); err != nil {
		t.Fatal(err)
	}
	p.click(t, `.controls button[data-command="tick 1s"]`)

	part := p.Locator(`#cluster-view .partition[data-partition="orders/0"]`)
	if err := expect.Locator(part.Locator(`.record[data-committed="true"]`)).ToHaveCount(3); err != nil {
		t.Fatal(err)
	}
	leader := p.attr(t, part, "data-leader")
	node := p.Locator(fmt.Sprintf(`#network .node[data-broker="%s"]`, leader))
	row := part.Locator(fmt.Sprintf(`.replica[data-replica="%s"]`, leader))

	p.click(t, fmt.Sprintf(`#network .node[data-broker="%s"] button[data-command="broker crash %s"]`, leader, leader))
	if err := expect.Locator(node).ToHaveAttribute("data-state", "down"); err != nil {
		t.Fatal(err)
	}
	p.click(t, fmt.Sprintf(`#network .node[data-broker="%s"] button[data-command="broker restart %s"]`, leader, leader))

	// The limbo: the metadata's leader, a broker that has not registered.
	if err := expect.Locator(node).ToHaveAttribute("data-state", "registering"); err != nil {
		t.Fatal(err)
	}
	for attr, want := range map[string]string{"data-leader": leader, "data-leader-state": "no replica yet"} {
		if err := expect.Locator(part).ToHaveAttribute(attr, want); err != nil {
			t.Fatalf("partition %s: %v", attr, err)
		}
	}
	if err := expect.Locator(part.Locator(".leader-badge")).ToContainText("no replica yet"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(row).ToHaveAttribute("data-replica-role", "no replica yet"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(row.Locator(".rep-role")).Not().ToContainText("follower"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(node.Locator(".leads")).ToContainText("named leader of orders/0, not leading"); err != nil {
		t.Fatal(err)
	}
	openBatch(t, p, part, 1)

	// Step by step through the restart: whatever the panels say, they
	// agree with each other.
	for i := 0; i < 6; i++ {
		p.click(t, `.controls button[data-command="step"]`)
		checkLeaderRows(t, p, part)
	}
	// The previous run's session expires: another broker leads, and the
	// restarted one registers and follows.
	p.click(t, `.controls button[data-command="tick 10s"]`)
	if err := expect.Locator(part).ToHaveAttribute("data-leader-epoch", "1"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(part).ToHaveAttribute("data-leader-state", ""); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(node).ToHaveAttribute("data-state", "running"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(row).ToHaveAttribute("data-replica-role", "follower"); err != nil {
		t.Fatal(err)
	}
	checkLeaderRows(t, p, part)
	openBatch(t, p, part, 2)
}

// openBatch clicks the record at offset and expects its batch, not an error.
func openBatch(t *testing.T, p *watchedPage, part playwright.Locator, offset int) {
	t.Helper()
	entries := p.Locator("#transcript .entry")
	before, err := entries.Count()
	if err != nil {
		t.Fatal(err)
	}
	if err := part.Locator(fmt.Sprintf(`.record[data-offset="%d"]`, offset)).Click(); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(entries).ToHaveCount(before + 1); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(entries.Last()).Not().ToHaveClass("entry error"); err != nil {
		text, _ := entries.Last().TextContent()
		t.Fatalf("clicking offset %d failed: %s", offset, text)
	}
	if err := expect.Locator(p.Locator("#batch-inspector")).ToContainText("Batch at"); err != nil {
		t.Fatal(err)
	}
}

// checkLeaderRows: the replica row of the leader the partition names
// leads, unless the partition says why not.
func checkLeaderRows(t *testing.T, p *watchedPage, part playwright.Locator) {
	t.Helper()
	leader := p.attr(t, part, "data-leader")
	state := p.attr(t, part, "data-leader-state")
	role := p.attr(t, part.Locator(fmt.Sprintf(`.replica[data-replica="%s"]`, leader)), "data-replica-role")
	if state == "" && role != "leader" {
		t.Errorf("orders/0 names leader %s without a reason, but its row says %q", leader, role)
	}
	if state != "" && role == "leader" {
		t.Errorf("orders/0 says its leader %s is %q, but its row says leader", leader, state)
	}
}
