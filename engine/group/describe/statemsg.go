package describe

import "strings"

// stateLines is Kafka's shouldPrintMemberState: the lines it writes
// about the group's state before a table (stderr, except the Dead
// error which printError writes to stdout), and whether the table's
// rows follow. rows is the number of data rows. An unknown state is
// Kafka's KafkaException, which ends the whole command: fatal.
func stateLines(out *strings.Builder, g Group, rows int) (show, fatal bool) {
	switch g.State {
	case "Dead":
		out.WriteString(errorLine("Consumer group '" + g.ID + "' does not exist."))
	case "Empty":
		out.WriteString("\nConsumer group '" + g.ID + "' has no active members.\n")
	case "PreparingRebalance", "CompletingRebalance", "Assigning", "Reconciling":
		out.WriteString("\nWarning: Consumer group '" + g.ID + "' is rebalancing.\n")
	case "Stable":
	default:
		// run() catches the exception: printError, then a stack trace
		// on stderr (not reproduced).
		state := g.State
		if state == "" {
			state = "Unknown"
		}
		out.WriteString(errorLine("Executing consumer group command failed due to Expected a valid consumer group state, but found '" + state + "'."))
		return false, true
	}
	return g.State != "Dead" && rows > 0, false
}

// errorLine is Kafka's printError (to stdout).
func errorLine(msg string) string { return "\nError: " + msg + "\n" }

// NotFound is what Kafka 4.x's tool prints for --describe of a group
// that does not exist: its Admin client fails with
// GroupIdNotFoundException and run() prints the error (then a Java
// stack trace on stderr, not reproduced here).
func NotFound(groupID string) string {
	return errorLine("Executing consumer group command failed due to org.apache.kafka.common.errors.GroupIdNotFoundException: Group " + groupID + " not found.")
}
