package web

import (
	"strconv"
	"strings"

	"github.com/loglab/loglab/engine/view"
)

// The quorum panel's words and numbers, computed here so quorum.templ only
// draws. Everything comes from view.Cluster as the engine gives it.

// activeLabel names the controller the diagram's "ctl" node stands for:
// the raft leader running the controller logic, or nobody without a
// majority.
func activeLabel(c view.Cluster) words {
	if c.ActiveController == 0 {
		return words{"no controller", "没有 controller"}
	}
	return words{en: "controller " + strconv.Itoa(c.ActiveController)}
}

// controllerRole is what a controller card calls its role. The raft
// leader is normally the active controller, the one brokers talk to. A
// leader raft elected on its own (a heartbeat came late in real time) gets
// the leadership taken back before any view is drawn
// (cluster.FollowQuorum); should raft elect again in between, the card
// says the leadership goes back, and the panel explains (raftDrift). A
// follower keeps naming the leader it last heard from after that leader
// crashed, so the card says when that one is down.
// Kafka's and raft's words (active controller, leader, follower,
// candidate) stay as they are in the Chinese.
func controllerRole(q view.Controller, c view.Cluster) words {
	active := q.ID == c.ActiveController
	switch q.Role {
	case "leader":
		if active {
			return words{en: "active controller"}
		}
		if c.ActiveController != 0 {
			a := strconv.Itoa(c.ActiveController)
			return words{"raft leader on its own, handing back to " + a, "自行成为的 raft leader，正在交还给 " + a}
		}
		return words{"raft leader, not active yet", "raft leader，尚未成为 active controller"}
	case "follower":
		l := strconv.Itoa(q.Leader)
		switch {
		case active && q.Leader == 0:
			return words{"active controller; raft knows no leader yet", "active controller；raft 还不知道 leader 是谁"}
		case active:
			return words{"active controller, taking the raft leadership back from " + l, "active controller，正在从 " + l + " 取回 raft leadership"}
		case q.Leader == 0:
			return words{"follower, no leader known", "follower，不知道 leader 是谁"}
		case !controllerUp(c.Quorum, q.Leader):
			return words{"follower; its leader " + l + " is down", "follower；它的 leader " + l + " 已宕机"}
		default:
			return words{"follower of " + l, l + " 的 follower"}
		}
	case "candidate":
		if q.Isolated {
			return words{"candidate: cut off from a majority, asking for votes in vain", "candidate：与多数派断开，拉票徒劳无功"}
		}
		return words{"candidate: asking for votes", "candidate：正在拉票"}
	case "down", "":
		return words{"down", "宕机"}
	}
	return words{en: q.Role}
}

// raftDrift is the controller raft made leader on its own while another
// is the active controller, 0 when raft and the simulation agree.
func raftDrift(c view.Cluster) int {
	if c.ActiveController == 0 {
		return 0
	}
	for _, q := range c.Quorum {
		if q.Up && q.Role == "leader" && q.ID != c.ActiveController {
			return q.ID
		}
	}
	return 0
}

func controllerUp(qs []view.Controller, id int) bool {
	for _, q := range qs {
		if q.ID == id {
			return q.Up
		}
	}
	return false
}

// roleAttr is the data-role value: the engine's role, "down" when crashed.
func roleAttr(q view.Controller) string {
	if !q.Up {
		return "down"
	}
	return q.Role
}

func snapshotText(q view.Controller) words {
	if q.SnapshotIndex == 0 {
		return words{"no snapshot", "没有 snapshot"}
	}
	return words{"snapshot at index " + u64(q.SnapshotIndex), "snapshot 位于 index " + u64(q.SnapshotIndex)}
}

// upCount is how many controllers run; a majority of the quorum must for
// any metadata to be decided.
func upCount(qs []view.Controller) int {
	n := 0
	for _, q := range qs {
		if q.Up {
			n++
		}
	}
	return n
}

func majority(c view.Cluster) int {
	n := len(c.Quorum)
	if n == 0 {
		n = c.Controllers
	}
	return n/2 + 1
}

// metadataRecord is one committed metadata record split into its offset
// and the rest, so the list can show offsets in their own column. The
// engine formats them as `show metadata` prints them: "12 PartitionChange …".
type metadataRecord struct {
	Offset string // "" when the text does not start with one
	Type   string // e.g. "PartitionChange"
	Detail string
}

func parseMetadataRecord(s string) metadataRecord {
	var r metadataRecord
	if off, rest, ok := strings.Cut(s, " "); ok {
		if _, err := strconv.ParseInt(off, 10, 64); err == nil {
			r.Offset, s = off, rest
		}
	}
	r.Type, r.Detail, _ = strings.Cut(s, " ")
	return r
}

// metadataBehind reports whether a broker has not yet replayed every
// committed metadata record: until it has, it acts on an older picture of
// the cluster (and the controller keeps it fenced after a restart).
func metadataBehind(c view.Cluster, b view.Broker) bool {
	return b.MetadataOffset < c.MetadataOffset
}

// metadataLag is how many committed metadata records a broker has yet to
// replay, as its card's short chip ("−3") and that chip's tooltip.
func metadataLag(c view.Cluster, b view.Broker) (chip, title string) {
	n := c.MetadataOffset - b.MetadataOffset
	s := "s"
	if n == 1 {
		s = ""
	}
	return "−" + strconv.FormatInt(n, 10), strconv.FormatInt(n, 10) + " committed metadata record" + s + " not replayed yet: this broker acts on an older picture of the cluster"
}

func u64(n uint64) string { return strconv.FormatUint(n, 10) }
