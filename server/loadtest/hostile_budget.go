package loadtest

import (
	"context"
	"fmt"
	"net/http"
	"strings"
)

// maxFillTopics bounds a filler's loop: the replica cap lets five topics
// of 64 × 3 into a cluster, so reaching this bound means no budget held.
const maxFillTopics = 20

// filled is what one participant filling their budgets met.
type filled struct {
	Topics  int    // topics of 64 partitions × rf 3 the cluster took
	Refusal string // the refusal that stopped it, first line
	Reason  string // POLICY_VIOLATION, DESCRIPTOR_BUDGET_REACHED, …; "" when none held
}

// budgetReasons are the refusals a full cluster or server may answer with.
var budgetReasons = []string{"POLICY_VIOLATION", "DESCRIPTOR_BUDGET_REACHED", "CLUSTER_LIMIT_REACHED"}

func reasonIn(s string) string {
	for _, r := range budgetReasons {
		if strings.Contains(s, r) {
			return r
		}
	}
	return ""
}

// fillBudgets is issue 26's first reproduction: a participant opens a
// cluster from their own address and creates 64-partition rf=3 topics until
// the server refuses one (the replica cap or the descriptor budget). The
// cluster stays, holding its descriptors, for the rest of the run.
func fillBudgets(ctx context.Context, c *apiClient, name string) (filled, error) {
	created, err := c.createCluster(ctx, name)
	if err != nil {
		if r := reasonIn(err.Error()); r != "" {
			return filled{Refusal: firstLine(err.Error()), Reason: r}, nil
		}
		return filled{}, fmt.Errorf("opening a cluster: %w", err)
	}
	c.token = created.Token
	var f filled
	for i := range maxFillTopics {
		res, err := c.command(ctx, created.ID, fmt.Sprintf("topic create fill%d partitions=64 rf=3", i))
		switch {
		case err != nil && statusOf(err) == http.StatusTooManyRequests:
			return f, fmt.Errorf("topic create was throttled: %w", err) // one command at a time never should be
		case err != nil:
			if r := reasonIn(err.Error()); r != "" {
				f.Refusal, f.Reason = firstLine(err.Error()), r
				return f, nil
			}
			return f, fmt.Errorf("topic create: %w", err)
		case res.OK:
			f.Topics++
		default:
			f.Refusal, f.Reason = firstLine(strings.TrimPrefix(res.Output, "error: ")), reasonIn(res.Output)
			if f.Reason == "" {
				return f, fmt.Errorf("topic create failed without naming a budget: %s", f.Refusal)
			}
			return f, nil
		}
	}
	return f, fmt.Errorf("%d topics of 64 partitions × rf 3 were all created: no budget held", maxFillTopics)
}
