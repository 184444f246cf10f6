package describe

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// OffsetRow is Kafka's PartitionAssignmentState: one row of --describe.
// Nil fields print "-".
type OffsetRow struct {
	Group         string
	Partition     Partition
	LeaderEpoch   *int32
	CurrentOffset *int64
	LogEndOffset  *int64
	Lag           *int64
	// ConsumerID, Host and ClientID are "-" for a committed partition no
	// member owns.
	ConsumerID, Host, ClientID string
}

// OffsetRows is ConsumerGroupService.collectGroupsOffsets: one row per
// partition of each member that owns any, members with the most
// partitions first (Kafka's stable sort keeps the coordinator's order
// among equals), each member's partitions by topic and partition; then
// the committed partitions no member owns, by topic and partition.
func OffsetRows(g Group) []OffsetRow {
	committed := map[Partition]Committed{}
	for _, c := range g.Committed {
		committed[c.Partition] = c
	}
	members := slices.Clone(g.Members)
	members = slices.DeleteFunc(members, func(m Member) bool { return len(m.Assignment) == 0 })
	slices.SortStableFunc(members, func(a, b Member) int {
		return cmp.Compare(len(uniqueSorted(b.Assignment)), len(uniqueSorted(a.Assignment)))
	})
	var rows []OffsetRow
	assigned := map[Partition]bool{}
	for _, m := range members {
		for _, p := range uniqueSorted(m.Assignment) {
			assigned[p] = true
			rows = append(rows, g.offsetRow(p, committed, m.ConsumerID, m.Host, m.ClientID))
		}
	}
	var unowned []Partition
	for _, c := range g.Committed {
		if !assigned[c.Partition] {
			unowned = append(unowned, c.Partition)
		}
	}
	for _, p := range uniqueSorted(unowned) {
		rows = append(rows, g.offsetRow(p, committed, missing, missing, missing))
	}
	return rows
}

// offsetRow is describePartitions' getDescribePartitionResult; the lag
// is getLag: known only with both a committed offset and a log end.
func (g Group) offsetRow(p Partition, committed map[Partition]Committed, consumer, host, client string) OffsetRow {
	r := OffsetRow{Group: g.ID, Partition: p, ConsumerID: consumer, Host: host, ClientID: client}
	if c, ok := committed[p]; ok {
		r.CurrentOffset, r.LeaderEpoch = &c.Offset, c.LeaderEpoch
	}
	if end, ok := g.LogEndOffsets[p]; ok {
		r.LogEndOffset = &end
		if r.CurrentOffset != nil && *r.CurrentOffset != -1 {
			lag := end - *r.CurrentOffset
			r.Lag = &lag
		}
	}
	return r
}

// Offsets is `kafka-consumer-groups.sh --describe --group G [--offsets]
// [--verbose]`: Kafka's printOffsets. --verbose adds LEADER-EPOCH, the
// leader epoch the offset was committed with.
func Offsets(g Group, verbose bool) string {
	rows := OffsetRows(g)
	var out strings.Builder
	show, _ := stateLines(&out, g, len(rows))
	if !show {
		return out.String()
	}
	// printOffsetFormat: the widths of GROUP, TOPIC, CONSUMER-ID and HOST
	// follow the data; the others are fixed.
	groupW, topicW, consumerW, hostW := 15, 15, 15, 15
	for _, r := range rows {
		groupW = widest(groupW, r.Group)
		topicW = widest(topicW, r.Partition.Topic)
		consumerW = widest(consumerW, r.ConsumerID)
		hostW = widest(hostW, r.Host)
	}
	header := []string{"GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID"}
	widths := []int{groupW, topicW, 10, 15, 15, 15, consumerW, hostW, 0}
	if verbose {
		header = slices.Insert(header, 3, "LEADER-EPOCH")
		widths = slices.Insert(widths, 3, 15)
	}
	out.WriteString("\n" + row(header, widths))
	for _, r := range rows {
		cells := []string{r.Group, r.Partition.Topic, strconv.Itoa(int(r.Partition.Partition)),
			optional64(r.CurrentOffset), optional64(r.LogEndOffset), optional64(r.Lag), r.ConsumerID, r.Host, r.ClientID}
		if verbose {
			cells = slices.Insert(cells, 3, optional(r.LeaderEpoch))
		}
		out.WriteString("\n" + row(cells, widths))
	}
	out.WriteString("\n")
	return out.String()
}

func optional64(v *int64) string {
	if v == nil {
		return missing
	}
	return strconv.FormatInt(*v, 10)
}

// uniqueSorted is a member's assignment as Kafka holds it (a set) in the
// order describePartitions sorts rows: by topic, then partition.
func uniqueSorted(ps []Partition) []Partition {
	out := slices.Clone(ps)
	slices.SortFunc(out, func(a, b Partition) int {
		return cmp.Or(strings.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition))
	})
	return slices.Compact(out)
}
