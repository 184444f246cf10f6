package quorum

import "github.com/loglab/loglab/engine/protocol"

// The controller process's HTTP API (api.go serves it, Remote calls it).
// Bodies are JSON; records are protocol.MetadataRecord and statuses
// kraft.ControllerStatus in encoding/json's default form (Go field names).
//
//	POST /append   body: an entry, {"v":1,"id":"...","records":[...]} (see entry)
//	               200 appendResponse: the records with their offsets, once committed
//	               421 apiError: this controller is not the active one; leaderApi says which is
//	               503 apiError: the active controller changed while appending; retry with the same id
//	GET /read?from=N[&active=1]
//	               200 readResponse: the records this controller applied from offset N
//	GET /image[?active=1]
//	               200 kraft.Image: the metadata image this controller applied
//	GET /status    200 kraft.ControllerStatus: this controller's raft state
//
// With active=1, only the active controller answers (others say 421), once
// it has applied everything committed before its term: what Remote reads.
// Without it, any controller answers with what it applied so far, so that a
// follower's copy can be looked at.
//
// Kafka's controllers speak Kafka's binary protocol instead, and brokers
// forward admin requests to the active controller (see
// docs/kraft-processes.md).

// appendResponse answers POST /append.
type appendResponse struct {
	Records []protocol.MetadataRecord `json:"records"`
}

// readResponse answers GET /read.
type readResponse struct {
	Controller int    `json:"controller"`
	Role       string `json:"role"`
	// Start is the first offset this controller holds records for; below
	// it they were folded into a snapshot it restored (Compacted says the
	// read asked for some of those). End is the offset the next record
	// will get.
	Start     int64                     `json:"start"`
	End       int64                     `json:"end"`
	Compacted bool                      `json:"compacted,omitempty"`
	Records   []protocol.MetadataRecord `json:"records"`
}

// apiError is the body of every answer that is not 200.
type apiError struct {
	Error string `json:"error"`
	// Leader and LeaderAPI name the active controller, when a 421 knows it.
	Leader    int    `json:"leader,omitempty"`
	LeaderAPI string `json:"leaderApi,omitempty"`
}
