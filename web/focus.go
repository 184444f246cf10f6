package web

import (
	"strconv"
	"strings"

	"github.com/loglab/loglab/engine/view"
)

// A lesson step points at one element of the cluster view with a focus
// form ("partition orders/0 replica 2 hw", vocabulary in lessons/focus.go
// and lessons/README.md). The element carries it as data-focus, and what
// the learner reads there as data-focus-state, so the player can find it
// and a test can check the lesson describes what the page draws. Each form
// is on exactly one element of a rendered view.

func focusPartition(p view.Partition, part string) string {
	if part == "" {
		return "partition " + p.Name()
	}
	return "partition " + p.Name() + " " + part
}

func focusRecord(p view.Partition, offset int64) string {
	return focusPartition(p, "record "+strconv.FormatInt(offset, 10))
}

func focusReplica(p view.Partition, r view.Replica, part string) string {
	s := focusPartition(p, "replica "+strconv.Itoa(r.Broker))
	if part != "" {
		s += " " + part
	}
	return s
}

// leaderFocusState is the leader as the badge names it: the metadata's
// leader (even one that cannot serve: the badge says why beside it).
func leaderFocusState(p view.Partition) string {
	if p.Leader < 0 {
		return "none"
	}
	return strconv.Itoa(p.Leader)
}

// committedState is a drawn record's focus state: committed or
// uncommitted (below the high watermark or not), then for a transaction's
// record its fate (open, committed, aborted); a marker is "marker COMMIT"
// or "marker ABORT".
func committedState(r view.Record) string {
	if r.Control != "" {
		return "marker " + r.Control
	}
	s := "uncommitted"
	if r.Committed {
		s = "committed"
	}
	if r.Txn != "" {
		s += " txn-" + r.Txn
	}
	return s
}

// lostFocusState lists the lost offsets the list draws, "…" where it
// leaves some out.
func lostFocusState(first, last []view.Record, hidden int) string {
	var parts []string
	for _, r := range first {
		parts = append(parts, strconv.FormatInt(r.Offset, 10))
	}
	if hidden > 0 {
		parts = append(parts, "…")
	}
	for _, r := range last {
		parts = append(parts, strconv.FormatInt(r.Offset, 10))
	}
	return strings.Join(parts, ",")
}

// brokerFocusState is the broker card's state chip, followed by "fenced"
// when the card shows that chip too: "running", "down fenced", ...
func brokerFocusState(b view.Broker) string {
	if b.Fenced {
		return brokerState(b) + " fenced"
	}
	return brokerState(b)
}

// controllerFocusState is "active" for the active controller, else its
// KRaft role (follower, prospective, candidate, unattached, resigned,
// leader) or "down".
func controllerFocusState(q view.Controller, c view.Cluster) string {
	if q.ID == c.ActiveController {
		return "active"
	}
	return roleAttr(q)
}

// batchBaseOffset is the inspected batch's baseOffset header field.
func batchBaseOffset(b view.BatchDetail) string {
	for _, f := range b.Fields {
		if f.Name == "baseOffset" {
			return f.Value
		}
	}
	if len(b.Records) > 0 {
		return strconv.FormatInt(b.Records[0].Offset, 10)
	}
	return ""
}
