//go:build !js

package quorum

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/hashicorp/raft"

	"github.com/loglab/loglab/engine/protocol"
)

// maxAppendBytes bounds an append's body, as the segment log bounds an
// entry (metadataLogConfig's MaxMessageBytes).
const maxAppendBytes = 64 << 20

// handler serves the controller's HTTP API (see wire.go). A tiny standard
// library mux is enough: four routes, JSON in and out.
func (p *Process) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /append", p.serveAppend)
	mux.HandleFunc("GET /read", p.serveRead)
	mux.HandleFunc("GET /image", p.serveImage)
	mux.HandleFunc("GET /status", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, p.Status())
	})
	return mux
}

// serveAppend commits an entry through raft, on the active controller
// only. A retried entry (same id) is committed once: after the barrier
// that makes this controller's state machine hold every entry committed
// before its term, an id it knows was applied already and gets its
// offsets back; one still in flight is applied once by the state machine
// however often it is proposed (see entry and fsm.Apply).
func (p *Process) serveAppend(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxAppendBytes))
	if err != nil {
		writeError(w, http.StatusBadRequest, fmt.Errorf("reading the entry: %w", err))
		return
	}
	e, err := decodeEntry(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	pr := p.active()
	if pr == nil {
		p.notController(w)
		return
	}
	if len(e.Records) == 0 {
		writeJSON(w, http.StatusOK, appendResponse{Records: []protocol.MetadataRecord{}})
		return
	}
	if e.ID != "" {
		if first, ok := pr.fsm.proposal(e.ID); ok {
			writeJSON(w, http.StatusOK, appendResponse{Records: withOffsets(e.Records, first)})
			return
		}
	}
	data, err := encodeEntry(e.ID, e.Records)
	if err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	f := pr.raft.Apply(data, 0)
	err = pr.wait(f, "committing an append")
	switch {
	case err == nil:
		res, _ := f.Response().(applied)
		if res.err != nil {
			writeError(w, http.StatusInternalServerError, res.err)
			return
		}
		writeJSON(w, http.StatusOK, appendResponse{Records: res.records})
	case errors.Is(err, raft.ErrNotLeader), errors.Is(err, raft.ErrLeadershipTransferInProgress):
		// Refused before it was appended anywhere.
		p.notController(w)
	default:
		// Maybe committed, maybe not: the next active controller knows.
		writeJSON(w, http.StatusServiceUnavailable, apiError{
			Error: fmt.Sprintf("%s: the active controller changed while appending (%v); retry with the same id", ErrNotController, err),
		})
	}
}

func withOffsets(records []protocol.MetadataRecord, first int64) []protocol.MetadataRecord {
	out := make([]protocol.MetadataRecord, len(records))
	for i, r := range records {
		r.Offset = first + int64(i)
		out[i] = r
	}
	return out
}

// serveRead returns the records this controller applied from offset from.
func (p *Process) serveRead(w http.ResponseWriter, r *http.Request) {
	from := int64(0)
	if s := r.URL.Query().Get("from"); s != "" {
		var err error
		if from, err = strconv.ParseInt(s, 10, 64); err != nil {
			writeError(w, http.StatusBadRequest, fmt.Errorf("from=%q: want an offset", s))
			return
		}
	}
	pr := p.reader(w, r)
	if pr == nil {
		return
	}
	recs, start, err := pr.fsm.read(from)
	if recs == nil {
		recs = []protocol.MetadataRecord{}
	}
	writeJSON(w, http.StatusOK, readResponse{
		Controller: p.cfg.ID, Role: roleName(pr.raft.State()),
		Start: start, End: pr.fsm.end(), Compacted: errors.Is(err, ErrCompacted), Records: recs,
	})
}

// serveImage returns this controller's metadata image.
func (p *Process) serveImage(w http.ResponseWriter, r *http.Request) {
	if pr := p.reader(w, r); pr != nil {
		writeJSON(w, http.StatusOK, pr.fsm.imageClone())
	}
}

// reader is the running controller a read goes to; with active=1 only the
// active controller, once caught up. It answers the request itself and
// returns nil when there is none.
func (p *Process) reader(w http.ResponseWriter, r *http.Request) *proc {
	if r.URL.Query().Get("active") == "1" {
		pr := p.active()
		if pr == nil {
			p.notController(w)
		}
		return pr
	}
	pr := p.proc()
	if pr == nil {
		writeError(w, http.StatusServiceUnavailable, ErrClosed)
	}
	return pr
}

// active is this controller's run when it is the active controller and
// has applied every entry committed before its term (raft's barrier, once
// per term, as for the in-process quorum); nil otherwise. It does not wait
// for an election: the caller is sent to the leader instead.
func (p *Process) active() *proc {
	pr, err := p.q.activeController(0)
	if err != nil {
		return nil
	}
	return pr
}

// notController answers 421 Misdirected Request with Kafka's
// NOT_CONTROLLER and, when this controller knows it, the active
// controller's API address, where the client should go instead.
func (p *Process) notController(w http.ResponseWriter) {
	e := apiError{Error: ErrNotController.Error()}
	if pr := p.proc(); pr != nil {
		_, lid := pr.raft.LeaderWithID()
		if id, err := strconv.Atoi(string(lid)); err == nil && id >= 1 && id <= len(p.apis) && id != p.cfg.ID {
			e.Leader, e.LeaderAPI = id, p.apis[id-1]
		}
	}
	writeJSON(w, http.StatusMisdirectedRequest, e)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

func writeError(w http.ResponseWriter, code int, err error) {
	writeJSON(w, code, apiError{Error: err.Error()})
}
