package web

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/a-h/templ"

	"github.com/loglab/loglab/engine/view"
)

// The quorum panel's words and numbers, computed here so quorum.templ only
// draws. Everything comes from view.Cluster as the engine gives it.

// activeLabel names the controller the diagram's "ctl" node stands for:
// the quorum's Leader running the controller logic, or nobody without a
// majority.
func activeLabel(c view.Cluster) words {
	if c.ActiveController == 0 {
		return words{"no controller", "没有 controller"}
	}
	return words{en: "controller " + strconv.Itoa(c.ActiveController)}
}

// controllerRole is what a controller card calls its role: its state in
// KRaft's QuorumState, under Kafka's names (Leader, Follower, Candidate,
// Prospective, Unattached, Resigned), which stay in English in the
// Chinese as Kafka's other terms do (active controller, leader). The
// Leader is the active controller, the one brokers talk to; a Leader that
// is not is one cut off from the others that has not resigned yet. A
// Follower keeps naming the leader of its epoch after that leader
// crashed, until its fetch timeout, so the card says when that one is
// down.
func controllerRole(q view.Controller, c view.Cluster) words {
	switch q.Role {
	case "leader":
		switch {
		case q.ID == c.ActiveController:
			return words{en: "Leader · active controller"}
		case c.ActiveController != 0:
			a := strconv.Itoa(c.ActiveController)
			return words{"Leader, but controller " + a + " is the active controller", "Leader，但 active controller 是 controller " + a}
		}
		return words{"Leader, not active yet", "Leader，尚未成为 active controller"}
	case "follower":
		l := strconv.Itoa(q.Leader)
		switch {
		case q.Leader == 0:
			return words{"Follower, no leader known", "Follower，不知道 leader 是谁"}
		case !controllerUp(c.Quorum, q.Leader):
			return words{"Follower; its leader " + l + " is down", "Follower；它的 leader " + l + " 已宕机"}
		default:
			return words{"Follower of " + l, l + " 的 Follower"}
		}
	case "prospective":
		if q.Isolated {
			return words{"Prospective: cut off from a majority, asking for pre-votes in vain", "Prospective：与多数派断开，请求 pre-vote 徒劳无功"}
		}
		return words{"Prospective: asking for pre-votes before it stands", "Prospective：参选前先请求 pre-vote"}
	case "candidate":
		if q.Isolated {
			return words{"Candidate: cut off from a majority, asking for votes in vain", "Candidate：与多数派断开，拉票徒劳无功"}
		}
		return words{"Candidate: asking for votes", "Candidate：正在拉票"}
	case "unattached":
		return words{"Unattached: no leader known in its epoch", "Unattached：在它的 epoch 中不知道 leader 是谁"}
	case "resigned":
		return words{"Resigned: gave up its epoch, waits for the next election", "Resigned：已放弃它的 epoch，等待下一次选举"}
	case "down", "shutdown", "":
		return words{"down", "宕机"}
	}
	return words{en: q.Role}
}

// electing reports whether the quorum, with no active controller, is
// electing one: a majority of the controllers runs and at least one of
// them reaches a majority. KRaft elects only once the old leader has been
// silent for controller.quorum.fetch.timeout.ms, so in virtual time there
// is a while with a majority up and nobody active. Otherwise there is no
// majority: too few run, or a network partition leaves every one of them
// on a side without one.
func electing(c view.Cluster) bool {
	if c.ActiveController != 0 || upCount(c.Quorum) < majority(c) {
		return false
	}
	for _, q := range c.Quorum {
		if q.Up && !q.Isolated {
			return true
		}
	}
	return false
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

// snapshotText names its latest snapshot by its end offset, as Kafka
// names a snapshot file by the offset and epoch it ends at.
func snapshotText(q view.Controller) words {
	if q.SnapshotIndex == 0 {
		return words{"no snapshot", "没有 snapshot"}
	}
	return words{"snapshot end offset " + u64(q.SnapshotIndex), "snapshot end offset 为 " + u64(q.SnapshotIndex)}
}

// metadataEndShown reports whether a card shows its metadata end apart
// from its log end offset: in the simulated quorum they are one offset;
// controllers in their own processes count their log apart.
func metadataEndShown(q view.Controller) bool {
	return q.MetadataEnd != int64(q.LastIndex)
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

// replicaNode names a replication row's node as the lab does: a voter is
// a controller (c1), an observer a broker (b1).
func replicaNode(r view.QuorumReplica) string {
	if r.Status == "Observer" {
		return "b" + strconv.Itoa(r.ID)
	}
	return "c" + strconv.Itoa(r.ID)
}

// lagBarStyle sizes a lagging replica's bar against the largest lag shown.
func lagBarStyle(lag int64, c view.Cluster) templ.SafeCSS {
	return templ.SafeCSS(fmt.Sprintf("width:%dpx", 4+lag*60/max(maxReplicaLag(c), 1)))
}

// maxReplicaLag is the largest lag of any replica behind the leader.
func maxReplicaLag(c view.Cluster) int64 {
	var most int64
	for _, r := range c.QuorumReplication {
		most = max(most, r.Lag)
	}
	return most
}
