package describe

import "strings"

// List is `kafka-consumer-groups.sh --list`, and with withState
// `--list --state`: Kafka's listGroups and printGroupInfo. The groups
// are printed in the order given (Kafka: the order the brokers answer).
func List(groups []Group, withState bool) string {
	return list(groups, false, withState)
}

// ListWithType is `--list --type` (and `--list --type --state`).
func ListWithType(groups []Group, withState bool) string {
	return list(groups, true, withState)
}

func list(groups []Group, withType, withState bool) string {
	var out strings.Builder
	if !withType && !withState {
		for _, g := range groups {
			out.WriteString(g.ID + "\n")
		}
		return out.String()
	}
	// printGroupInfo: the GROUP column is 10 wider than the longest id
	// (at least 15); TYPE and STATE are "%-20s", padding included at
	// the end of the line.
	groupW := 15
	for _, g := range groups {
		groupW = widest(groupW, g.ID)
	}
	groupW += 10
	line := func(id, typ, state string) string {
		cells, widths := []string{id}, []int{groupW}
		if withType {
			cells, widths = append(cells, typ), append(widths, 20)
		}
		if withState {
			cells, widths = append(cells, state), append(widths, 20)
		}
		return row(cells, widths) + "\n"
	}
	out.WriteString(line("GROUP", "TYPE", "STATE"))
	for _, g := range groups {
		out.WriteString(line(g.ID, orUnknown(g.Type), orUnknown(g.State)))
	}
	return out.String()
}

// orUnknown is GroupListing's type()/groupState().orElse(UNKNOWN).
func orUnknown(s string) string {
	if s == "" {
		return "Unknown"
	}
	return s
}
