package web

import (
	"strconv"

	"github.com/loglab/loglab/engine/view"
)

// A producer's card draws what its TransactionManager holds: the producer
// id and epoch every batch header carries, the manager's state, and per
// partition the sequence numbers the leader checks for duplicates and
// gaps. Computed here so network.templ only draws.

// ProducerSequencesShown bounds the partitions a producer card lists; the
// others are counted (a producer writing to 50 partitions would otherwise
// make a card taller than the page).
const ProducerSequencesShown = 4

// seqRowH is the height of a row of the sequence table (12px type).
const seqRowH = 15.5

// idempotent: the producer has a TransactionManager (Kafka's producer
// has none with enable.idempotence=false).
func idempotent(ps *view.ProducerState) bool { return ps != nil && ps.TxnState != "" }

// producerHeight is a producer card's height, for the diagram's layout:
// the head and kind line, then a crashed producer's transactional.id and
// the line saying its process is gone; the line saying idempotence is off;
// or the transactional.id (or "idempotent"), the id and epoch, the state,
// and the sequence table (its header, its rows, the line counting the
// rows left out).
func producerHeight(cl view.Client) float64 {
	ps := cl.Producer
	switch {
	case cl.Down && ps.TransactionalID != "":
		return clientH + 2*lineH
	case cl.Down, !idempotent(ps):
		return clientH + lineH
	}
	h := clientH + 3*lineH
	if len(ps.Sequences) > 0 {
		h += seqRowH * float64(1+min(len(ps.Sequences), ProducerSequencesShown))
		if len(ps.Sequences) > ProducerSequencesShown {
			h += lineH
		}
	}
	return h
}

// shownSequences are the sequence rows drawn and how many are left out.
func shownSequences(ps *view.ProducerState) ([]view.ProducerSequence, int) {
	n := min(len(ps.Sequences), ProducerSequencesShown)
	return ps.Sequences[:n], len(ps.Sequences) - n
}

// focusProducer is a producer element's focus form: "producer NAME" or
// "producer NAME state".
func focusProducer(name, part string) string {
	if part == "" {
		return "producer " + name
	}
	return "producer " + name + " " + part
}

// producerIDFocusState is "PID/EPOCH" ("0/1"), or "none" before the
// producer has an id (or without idempotence).
func producerIDFocusState(ps *view.ProducerState) string {
	if ps == nil || ps.ProducerID < 0 {
		return "none"
	}
	return strconv.FormatInt(ps.ProducerID, 10) + "/" + strconv.Itoa(ps.ProducerEpoch)
}

// producerStateFocusState is the TransactionManager's state name, "none"
// without one.
func producerStateFocusState(ps *view.ProducerState) string {
	if !idempotent(ps) {
		return "none"
	}
	return ps.TxnState
}

// txnStateClass is the state chip's class: "tm-in_transaction", ...
func txnStateClass(s string) string {
	out := []byte("tm-")
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out = append(out, c)
	}
	return string(out)
}

// txnStateWords says what the TransactionManager's state means for the
// producer's next move.
func txnStateTitle(s string) string {
	switch s {
	case "UNINITIALIZED":
		return "no producer id yet: initTransactions (or the first send of an idempotent producer) asks for one"
	case "INITIALIZING":
		return "InitProducerId sent: waiting for a producer id and epoch"
	case "READY":
		return "has a producer id; no transaction open"
	case "IN_TRANSACTION":
		return "beginTransaction ran: sends are part of the transaction"
	case "COMMITTING_TRANSACTION":
		return "EndTxn(commit) sent: the coordinator writes COMMIT markers"
	case "ABORTING_TRANSACTION":
		return "EndTxn(abort) sent: the coordinator writes ABORT markers"
	case "ABORTABLE_ERROR":
		return "a send failed: the transaction can only be aborted"
	case "FATAL_ERROR":
		return "fenced or broken (e.g. PRODUCER_FENCED): this instance can only be closed"
	}
	return ""
}
