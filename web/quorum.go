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
func activeLabel(c view.Cluster) string {
	if c.ActiveController == 0 {
		return "no controller"
	}
	return "controller " + strconv.Itoa(c.ActiveController)
}

// controllerRole is what a controller card calls its role. The raft
// leader is normally the active controller, the one brokers talk to. A
// leader raft elected on its own (a heartbeat came late in real time) gets
// the leadership taken back before any view is drawn
// (cluster.FollowQuorum); should raft elect again in between, the card
// says the leadership goes back, and the panel explains (raftDrift). A
// follower keeps naming the leader it last heard from after that leader
// crashed, so the card says when that one is down.
func controllerRole(q view.Controller, c view.Cluster) string {
	active := q.ID == c.ActiveController
	switch q.Role {
	case "leader":
		if active {
			return "active controller"
		}
		if c.ActiveController != 0 {
			return "raft leader on its own, handing back to " + strconv.Itoa(c.ActiveController)
		}
		return "raft leader, not active yet"
	case "follower":
		var s string
		switch {
		case q.Leader == 0:
			s = "follower, no leader known"
		case !controllerUp(c.Quorum, q.Leader):
			s = "follower; its leader " + strconv.Itoa(q.Leader) + " is down"
		default:
			s = "follower of " + strconv.Itoa(q.Leader)
		}
		if active {
			s = "active controller, taking the raft leadership back from " + strconv.Itoa(q.Leader)
			if q.Leader == 0 {
				s = "active controller; raft knows no leader yet"
			}
		}
		return s
	case "candidate":
		if q.Isolated {
			return "candidate: cut off from a majority, asking for votes in vain"
		}
		return "candidate: asking for votes"
	case "down", "":
		return "down"
	}
	return q.Role
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

func snapshotText(q view.Controller) string {
	if q.SnapshotIndex == 0 {
		return "no snapshot"
	}
	return "snapshot at index " + u64(q.SnapshotIndex)
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
