package e2e

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// A leader crash seen in the browser lab: the learner clicks the leader's
// crash button and the 10 s tick, and the page shows the controller's
// answer, a new leader at leader epoch 1 without the dead broker in the
// ISR; after a restart the broker catches up and rejoins the ISR. Every
// step is a click on the page, as a learner would do it.
func TestLabLeaderFailover(t *testing.T) {
	t.Parallel()
	p := newPage(t)
	p.open(t, "/lab")
	p.command(t, "cluster brokers=3 controllers=3 seed=7")
	p.command(t, "topic create orders rf=3 min.insync.replicas=2")
	p.command(t, "producer create safe acks=all")
	p.command(t, "produce orders key=k{i} value=v{i} count=5 producer=safe")
	if err := expect.Locator(p.Locator("#transcript .entry").Last()).ToContainText("produced 5 records to orders/0"); err != nil {
		t.Fatal(err)
	}
	// Followers learn the high watermark from their next fetch.
	p.click(t, `.controls button[data-command="tick 1s"]`)

	part := p.Locator(`#cluster-view [data-partition="orders/0"]`)
	if err := expect.Locator(part.Locator(`.record[data-committed="true"][data-acked="true"]`)).ToHaveCount(5); err != nil {
		t.Fatalf("the five acks=all records are not shown committed and acknowledged: %v", err)
	}
	if err := expect.Locator(part).ToHaveAttribute("data-leader-epoch", "0"); err != nil {
		t.Fatal(err)
	}
	leader := p.attr(t, part, "data-leader")
	if text, _ := part.Locator(".leader-badge .leader-id").TextContent(); text != leader {
		t.Fatalf("the badge names leader %q, the partition %q", text, leader)
	}
	if err := expect.Locator(part.Locator(fmt.Sprintf(`.replica[data-replica="%s"]`, leader))).ToHaveAttribute("data-leader", "true"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(part.Locator(`.replica[data-isr="true"]`)).ToHaveCount(3); err != nil {
		t.Fatal(err)
	}
	node := p.Locator(fmt.Sprintf(`#network .node[data-broker="%s"]`, leader))
	if err := expect.Locator(node).ToHaveAttribute("data-state", "running"); err != nil {
		t.Fatal(err)
	}
	epochBefore := p.attr(t, node, "data-epoch")

	// Crash the leader from its node in the diagram.
	p.click(t, fmt.Sprintf(`#network .node[data-broker="%s"] button[data-command="broker crash %s"]`, leader, leader))
	if err := expect.Locator(node).ToHaveAttribute("data-state", "down"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(part.Locator(".leader-badge")).ToContainText("down"); err != nil {
		t.Fatal(err)
	}
	// The controller notices only after broker.session.timeout.ms (9 s).
	p.click(t, `.controls button[data-command="tick 10s"]`)
	if err := expect.Locator(part).ToHaveAttribute("data-leader-epoch", "1"); err != nil {
		t.Fatal(err)
	}
	newLeader := p.attr(t, part, "data-leader")
	if newLeader == leader || newLeader == "-1" {
		t.Fatalf("leader after the crash is %s (was %s)", newLeader, leader)
	}
	if err := expect.Locator(part.Locator(".leader-badge")).ToHaveText("leader " + newLeader + " · epoch 1"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(node).ToHaveAttribute("data-fenced", "true"); err != nil {
		t.Fatal(err)
	}
	dead := part.Locator(fmt.Sprintf(`.replica[data-replica="%s"]`, leader))
	for attr, want := range map[string]string{"data-alive": "false", "data-isr": "false"} {
		if err := expect.Locator(dead).ToHaveAttribute(attr, want); err != nil {
			t.Fatalf("crashed replica %s: %v", attr, err)
		}
	}
	if err := expect.Locator(part.Locator(fmt.Sprintf(`.replica[data-replica="%s"]`, newLeader))).ToHaveAttribute("data-leader", "true"); err != nil {
		t.Fatal(err)
	}
	// acks=all with two in-sync replicas: nothing acknowledged was lost.
	if err := expect.Locator(part.Locator(`.record[data-acked="true"]`)).ToHaveCount(5); err != nil {
		t.Fatal(err)
	}

	// Restart it: it registers with a new broker epoch, catches up and
	// rejoins the ISR.
	p.click(t, fmt.Sprintf(`#network .node[data-broker="%s"] button[data-command="broker restart %s"]`, leader, leader))
	p.click(t, `.controls button[data-command="tick 10s"]`)
	if err := expect.Locator(dead).ToHaveAttribute("data-isr", "true"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(node).ToHaveAttribute("data-state", "running"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(node).ToHaveAttribute("data-fenced", "false"); err != nil {
		t.Fatal(err)
	}
	if before, _ := strconv.Atoi(epochBefore); p.attrInt(t, node, "data-epoch") <= before {
		t.Errorf("broker epoch after the restart %d, before %d", p.attrInt(t, node, "data-epoch"), before)
	}
	if err := expect.Locator(part.Locator(`.replica[data-isr="true"]`)).ToHaveCount(3); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(part).ToHaveAttribute("data-leader-epoch", "1"); err != nil {
		t.Fatal(err)
	}

	p.click(t, `.controls button[data-command="check invariants"]`)
	if err := expect.Locator(p.Locator("#transcript .entry").Last()).ToContainText("all invariants hold"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(p.Locator("#violations")).ToHaveCount(0); err != nil {
		t.Fatal(err)
	}
}

// acks=1 and a leader crash lose an acknowledged record, and the page says
// so: the checker's violation in its panel, the record in the partition's
// list of acknowledged-then-lost records.
func TestLabFlagsALostAcknowledgedRecord(t *testing.T) {
	t.Parallel()
	p := newPage(t)
	p.open(t, "/lab")
	for _, line := range []string{
		"cluster brokers=3 controllers=3 seed=7",
		"topic create orders rf=3 min.insync.replicas=2",
		"producer create fast acks=1",
		"produce orders key=a value=replicated producer=fast",
		"tick 1s",
		"net drop from=2 type=FetchResponse count=0",
		"produce orders key=a value=acknowledged-then-lost producer=fast",
	} {
		p.command(t, line)
	}
	part := p.Locator(`#cluster-view [data-partition="orders/0"]`)
	// Acknowledged by the leader alone: above the high watermark.
	if err := expect.Locator(part.Locator(`.record[data-offset="1"]`)).ToHaveAttribute("data-committed", "false"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(part.Locator(`.record[data-offset="1"]`)).ToHaveAttribute("data-acked", "true"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(p.Locator(`#network .link[data-kind="FetchResponse"][data-fate="dropped"]`).First()).ToBeAttached(); err != nil {
		t.Fatal(err)
	}
	leader := p.attr(t, part, "data-leader")
	p.click(t, fmt.Sprintf(`#network button[data-command="broker crash %s"]`, leader))
	p.click(t, `.controls button[data-command="net heal"]`)
	p.click(t, `.controls button[data-command="tick 10s"]`)
	if err := expect.Locator(part).ToHaveAttribute("data-leader-epoch", "1"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(part.Locator(`.lost-record[data-lost-offset="1"]`)).ToContainText("acknowledged-then-lost"); err != nil {
		t.Fatal(err)
	}
	p.click(t, `.controls button[data-command="check invariants"]`)
	violation := p.Locator(`#violations .violation[data-invariant="acks=1-loss"]`)
	if err := expect.Locator(violation).ToContainText("acknowledged record lost"); err != nil {
		t.Fatal(err)
	}
	if err := expect.Locator(violation).ToContainText(regexp.MustCompile(`orders/0 offset 1 \("acknowledged-then-lost"`)); err != nil {
		t.Fatal(err)
	}
}

// click clicks the element a selector names and fails the test if there
// is none: a button that is not there is a broken page.
func (w *watchedPage) click(t *testing.T, selector string) {
	t.Helper()
	if err := w.Locator(selector).Click(); err != nil {
		t.Fatalf("clicking %s: %v", selector, err)
	}
}

func (w *watchedPage) attr(t *testing.T, l playwright.Locator, name string) string {
	t.Helper()
	v, err := l.GetAttribute(name)
	if err != nil {
		t.Fatalf("reading %s: %v", name, err)
	}
	return v
}

func (w *watchedPage) attrInt(t *testing.T, l playwright.Locator, name string) int {
	t.Helper()
	n, err := strconv.Atoi(w.attr(t, l, name))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return n
}
