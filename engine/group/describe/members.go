package describe

import (
	"slices"
	"strconv"
	"strings"
)

// Members is `kafka-consumer-groups.sh --describe --group G --members
// [--verbose]`: Kafka's printMembers. GROUP-INSTANCE-ID appears only when
// some member has one. --verbose adds each member's epoch and assignment
// and the group's target assignment epoch with the member's target
// assignment, "-" where the group has none (a classic group).
//
// As in Kafka, the header is printed even when the state lines say there
// is nothing to show (an Empty or Dead group); the column widths are then
// the minimum ones.
func Members(g Group, verbose bool) string {
	var out strings.Builder
	show, fatal := stateLines(&out, g, len(g.Members))
	if fatal {
		return out.String()
	}
	groupW, consumerW, instanceW, hostW, clientW, currentW, targetW := 15, 15, 17, 15, 15, 20, 20
	withInstance := false
	if show {
		for _, m := range g.Members {
			groupW = widest(groupW, g.ID)
			consumerW = widest(consumerW, m.ConsumerID)
			instanceW = widest(instanceW, m.GroupInstanceID)
			hostW = widest(hostW, m.Host)
			clientW = widest(clientW, m.ClientID)
			withInstance = withInstance || m.GroupInstanceID != ""
			currentW = widest(currentW, assignmentString(m.Assignment))
			targetW = widest(targetW, assignmentString(m.TargetAssignment))
		}
	}
	// The member columns end in "%-15s " (#PARTITIONS and a space); the
	// verbose ones follow without a separator of their own.
	memberCells := func(group, consumer, instance, host, client, partitions string) string {
		if withInstance {
			return row([]string{group, consumer, instance, host, client, partitions}, []int{groupW, consumerW, instanceW, hostW, clientW, 15}) + " "
		}
		return row([]string{group, consumer, host, client, partitions}, []int{groupW, consumerW, hostW, clientW, 15}) + " "
	}
	verboseWidths := []int{15, currentW, 15, targetW}

	out.WriteString("\n" + memberCells("GROUP", "CONSUMER-ID", "GROUP-INSTANCE-ID", "HOST", "CLIENT-ID", "#PARTITIONS"))
	if verbose {
		out.WriteString(row([]string{"CURRENT-EPOCH", "CURRENT-ASSIGNMENT", "TARGET-EPOCH", "TARGET-ASSIGNMENT"}, verboseWidths))
	}
	out.WriteString("\n")
	for _, m := range g.Members {
		out.WriteString(memberCells(g.ID, m.ConsumerID, m.GroupInstanceID, m.Host, m.ClientID, strconv.Itoa(len(uniqueSorted(m.Assignment)))))
		if verbose {
			out.WriteString(row([]string{optional(m.MemberEpoch), assignmentString(m.Assignment),
				optional(g.TargetAssignmentEpoch), assignmentString(m.TargetAssignment)}, verboseWidths))
		}
		out.WriteString("\n")
	}
	return out.String()
}

// assignmentString is Kafka's getAssignmentString ("-" when empty):
// "topic:p,p" per topic, partitions in number order, the topic strings
// sorted and joined by ";".
func assignmentString(ps []Partition) string {
	if len(ps) == 0 {
		return missing
	}
	var topics []string
	var b strings.Builder
	sorted := uniqueSorted(ps)
	for i, p := range sorted {
		if i == 0 || sorted[i-1].Topic != p.Topic {
			if b.Len() > 0 {
				topics = append(topics, b.String())
				b.Reset()
			}
			b.WriteString(p.Topic + ":")
		} else {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(int(p.Partition)))
	}
	topics = append(topics, b.String())
	slices.Sort(topics)
	return strings.Join(topics, ";")
}
