package describe

import (
	"strconv"
	"strings"
)

// State is `kafka-consumer-groups.sh --describe --group G --state
// [--verbose]`: Kafka's printStates. --verbose adds GROUP-EPOCH and
// TARGET-ASSIGNMENT-EPOCH, "-" for a classic group.
func State(g Group, verbose bool) string {
	var out strings.Builder
	if show, _ := stateLines(&out, g, 1); !show {
		return out.String()
	}
	coordinator := g.Coordinator.coordinator()
	widths := []int{widest(15, g.ID), widest(25, coordinator), 20, 20, 0}
	header := []string{"GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY", "STATE", "#MEMBERS"}
	strategy := g.AssignmentStrategy
	if strategy == "" {
		strategy = missing
	}
	values := []string{g.ID, coordinator, strategy, g.State, strconv.Itoa(len(g.Members))}
	if verbose {
		widths = []int{widths[0], widths[1], 20, 20, 15, 25, 0}
		header = []string{"GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY", "STATE", "GROUP-EPOCH", "TARGET-ASSIGNMENT-EPOCH", "#MEMBERS"}
		values = []string{values[0], values[1], values[2], values[3], optional(g.GroupEpoch), optional(g.TargetAssignmentEpoch), values[4]}
	}
	out.WriteString("\n" + row(header, widths))
	out.WriteString("\n" + row(values, widths))
	out.WriteString("\n")
	return out.String()
}
