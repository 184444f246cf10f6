package web

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/loglab/loglab/engine/view"
)

// The consumer group panel's words and numbers, computed here so
// groups.templ only draws. Everything comes from view.Group as the engine
// gives it.

const (
	// MemberColours is the size of the member palette (static/style.css,
	// .mc0 … .mc7): view.GroupMember.Colour is taken modulo it. A colour
	// never stands alone: every chip, badge and timeline row also names
	// its client.
	MemberColours = 8
	// GroupMembersShown bounds the member cards a group draws, and
	// GroupPartitionsShown the rows of its partitions table; the rest are
	// counted (`group describe` prints them).
	GroupMembersShown    = 16
	GroupPartitionsShown = 64
	// RebalancesShown is how many of a group's newest rebalances its
	// timeline draws; older ones are counted.
	RebalancesShown = 40
	// memberIDShown is how much of a member id a card draws: Kafka's ids
	// are long (classic: client.id + "-" + a UUID; KIP-848: a 22-character
	// Uuid), the card's title carries it whole.
	memberIDShown = 12
)

// The four client metrics a member card always shows, by Kafka's names
// (ConsumerCoordinator's and FetchManager's sensors), in this order.
var memberMetricNames = []string{"rebalance-total", "rebalance-latency-avg", "last-rebalance-seconds-ago", "records-lag-max"}

// colourClass is the palette class of a member colour, "mc-none" for a
// partition nobody owns.
func colourClass(colour int) string {
	if colour < 0 {
		return "mc-none"
	}
	return "mc" + strconv.Itoa(colour%MemberColours)
}

// shortMemberID cuts a member id for its card (on a character boundary).
func shortMemberID(id string) string {
	r := []rune(id)
	if len(r) <= memberIDShown {
		return id
	}
	return string(r[:memberIDShown]) + "…"
}

// focusGroup is a group element's focus form: "group G", "group G epoch",
// "group G member C", ...
func focusGroup(g view.Group, part string) string {
	if part == "" {
		return "group " + g.ID
	}
	return "group " + g.ID + " " + part
}

// isConsumerProtocol: a KIP-848 group (group.protocol=consumer), whose
// epoch is the group epoch; a classic group's is the generation.
func isConsumerProtocol(g view.Group) bool { return g.Protocol == "consumer" }

// groupEpochWords names the group's epoch as kafka-consumer-groups.sh
// --describe --state does: the generation of a classic group, the group
// epoch of a consumer one (the number itself is drawn beside it).
func groupEpochWords(g view.Group) words {
	if isConsumerProtocol(g) {
		return words{en: "group epoch"}
	}
	return words{en: "generation"}
}

// memberEpochWords is a member's epoch as its card names it.
func memberEpochWords(g view.Group, m view.GroupMember) words {
	if isConsumerProtocol(g) {
		return words{en: "member epoch " + i32(m.Epoch)}
	}
	return words{en: "generation " + i32(m.Epoch)}
}

// coordinatorWords says which broker coordinates the group, and from
// which __consumer_offsets partition it does.
func coordinatorWords(g view.Group) words {
	if g.OffsetsPartition < 0 {
		// Kafka creates __consumer_offsets at the first FindCoordinator:
		// a group whose consumers have not looked for it yet has none.
		return words{"no coordinator yet (__consumer_offsets does not exist yet: the first FindCoordinator creates it)", "还没有 coordinator（__consumer_offsets 尚不存在：第一次 FindCoordinator 时创建）"}
	}
	p := "__consumer_offsets/" + strconv.Itoa(g.OffsetsPartition)
	if g.Coordinator == 0 {
		return words{"no coordinator (" + p + " has no leader)", "没有 coordinator（" + p + " 没有 leader）"}
	}
	return words{en: "coordinator broker " + strconv.Itoa(g.Coordinator) + " · " + p}
}

// memberPhaseWords is the client's side of a member, in both languages.
func memberPhaseWords(phase string) words {
	switch phase {
	case "stable":
		return words{"stable", "稳定"}
	case "joining":
		return words{"joining", "正在加入"}
	case "syncing":
		return words{"syncing", "正在同步"}
	case "reconciling":
		return words{"reconciling", "正在调和分配"}
	case "left":
		return words{"left", "已离开"}
	case "crashed":
		return words{"crashed", "已崩溃"}
	}
	return words{en: phase}
}

// focusedMembers says which member card carries `group G member C`: one
// card per client name. A client that crashed and came back can be in the
// coordinator's list twice (its old member lingers until
// session.timeout.ms expires it, its new one has joined): the focus goes
// to the member the client runs now (the first not left or crashed), else
// to the first.
func focusedMembers(g view.Group) []bool {
	chosen := map[string]int{}
	for i, m := range g.Members {
		j, seen := chosen[m.Client]
		switch {
		case !seen:
			chosen[m.Client] = i
		case memberGone(g.Members[j]) && !memberGone(m):
			chosen[m.Client] = i
		}
	}
	out := make([]bool, len(g.Members))
	for i, m := range g.Members {
		out[i] = chosen[m.Client] == i
	}
	return out
}

func memberGone(m view.GroupMember) bool { return m.Phase == "left" || m.Phase == "crashed" }

// ownedPartitions are the partitions a member keeps, as its chips draw
// them: its assignment less those it is revoking (Kafka's
// ConsumerGroupMember keeps the two apart; should the view list one in
// both, it is drawn once, as revoking).
func ownedPartitions(m view.GroupMember) []string {
	var out []string
	for _, tp := range m.Assigned {
		if !slices.Contains(m.Revoking, tp) {
			out = append(out, tp)
		}
	}
	return out
}

// memberFocusState is `group G member C`'s state: the partitions drawn as
// the member's own, comma-separated, or "none".
func memberFocusState(m view.GroupMember) string {
	if owned := ownedPartitions(m); len(owned) > 0 {
		return strings.Join(owned, ",")
	}
	return "none"
}

// memberColour is the colour the panel draws a client in: its member's,
// so a partition's owner badge and table row match the member's chips.
// A client the group no longer lists keeps the colour the view gives.
func memberColour(g view.Group, client string, fallback int) int {
	focused := focusedMembers(g)
	for i, m := range g.Members {
		if m.Client == client && focused[i] {
			return m.Colour
		}
	}
	return fallback
}

// memberMetrics are the four rebalance and lag metrics every card shows,
// "-" where the client reports none, then any other metric the view
// carries, in its order.
func memberMetrics(m view.GroupMember) []view.Metric {
	out := make([]view.Metric, 0, len(memberMetricNames)+len(m.Metrics))
	for _, name := range memberMetricNames {
		v := "-"
		for _, x := range m.Metrics {
			if x.Name == name {
				v = x.Value
				break
			}
		}
		out = append(out, view.Metric{Name: name, Value: v})
	}
	for _, x := range m.Metrics {
		if !slices.Contains(memberMetricNames, x.Name) {
			out = append(out, x)
		}
	}
	return out
}

// offsetOrDash is an offset or lag as kafka-consumer-groups.sh prints it:
// "-" where it is unknown.
func offsetOrDash(n int64) string {
	if n < 0 {
		return "-"
	}
	return strconv.FormatInt(n, 10)
}

// offsetOrNone is a focus state: the offset, or "none".
func offsetOrNone(n int64) string {
	if n < 0 {
		return "none"
	}
	return strconv.FormatInt(n, 10)
}

func ownerOrNone(owner string) string {
	if owner == "" {
		return "none"
	}
	return owner
}

func i32(n int32) string { return strconv.FormatInt(int64(n), 10) }

// partitionOwner is one group's owner of a partition, for the badge on the
// partition's strip.
type partitionOwner struct {
	Group  string
	Client string
	Colour int
}

// partitionOwners maps "T/P" to the members owning it, one per group, in
// the groups' order.
func partitionOwners(groups []view.Group) map[string][]partitionOwner {
	out := map[string][]partitionOwner{}
	for _, g := range groups {
		for _, p := range g.Partitions {
			if p.Owner == "" {
				continue
			}
			out[p.TP] = append(out[p.TP], partitionOwner{Group: g.ID, Client: p.Owner, Colour: memberColour(g, p.Owner, p.Colour)})
		}
	}
	return out
}

func ownerBadgeTitle(o partitionOwner) string {
	return fmt.Sprintf("consumer group %s: owned by %s", o.Group, o.Client)
}
