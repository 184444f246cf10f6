package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/loglab/loglab/engine/lab"
)

// The time bar of a cluster's page (web/timeline.templ, static/timeline.js)
// speaks to these, with the rights of the page's visitor: only who may
// drive the cluster travels in its time, and sees its commands, as with
// the command log. Each move runs under the session's mutex like a
// command, and every page watching receives the rebuilt transcript and
// view over its websocket.
//
//	GET  /api/v1/clusters/:cluster/timeline              where the session is (?commands=1: and its commands)
//	POST /api/v1/clusters/:cluster/timeline              {"action": "undo"} or {"action": "rewind", "to": N}
//	POST /api/v1/clusters/:cluster/commands.log          {"script": "..."}: open a saved session
//	PUT  /api/v1/clusters/:cluster/commands.log          the same
//	GET  /api/v1/clusters/:cluster/commands.log?for=lab  the session as the browser lab replays it
func (s *Server) timelineRoutes(e *echo.Echo) {
	e.GET("/api/v1/clusters/:cluster/timeline", s.apiTimeline)
	e.POST("/api/v1/clusters/:cluster/timeline", s.apiTimelineMove)
	e.POST("/api/v1/clusters/:cluster/commands.log", s.apiOpenScript)
	e.PUT("/api/v1/clusters/:cluster/commands.log", s.apiOpenScript)
}

// timelineRequest is the body of POST .../timeline.
type timelineRequest struct {
	Action string `json:"action"` // "undo" or "rewind"
	To     int    `json:"to"`     // rewind: the command to go back to, 1 being the `cluster`
}

// scriptRequest is the body of POST/PUT .../commands.log.
type scriptRequest struct {
	Script string `json:"script"`
}

// timelineAnswer answers a move: the timeline after it, what it did, or
// why it did nothing (the session is then as it was).
type timelineAnswer struct {
	Timeline timelineState `json:"timeline"`
	Message  string        `json:"message,omitempty"`
	Error    string        `json:"error,omitempty"`
}

// driverOf finds the request's cluster and checks that its visitor may
// change it; nil with the answer written otherwise.
func (s *Server) driverOf(c echo.Context, what string) (*liveSession, error) {
	sess, err := s.clusterParam(c)
	if sess == nil {
		return nil, err
	}
	if !s.roleOf(c.Request()).mayDrive(sess) {
		return nil, answerClusterError(c, http.StatusForbidden, "CLUSTER_AUTHORIZATION_FAILED", what+" is the cluster's owner's and the instructor's")
	}
	return sess, nil
}

// apiTimeline is GET .../timeline.
func (s *Server) apiTimeline(c echo.Context) error {
	sess, err := s.driverOf(c, "a cluster's timeline")
	if sess == nil {
		return err
	}
	tl := sess.timeline()
	if c.QueryParam("commands") != "1" {
		tl.Commands = nil // what a page reads after every change: see timelineState
	}
	return c.JSON(http.StatusOK, tl)
}

// apiTimelineMove is POST .../timeline: undo, or go back to a command.
func (s *Server) apiTimelineMove(c echo.Context) error {
	sess, err := s.driverOf(c, "travelling in a cluster's time")
	if sess == nil {
		return err
	}
	var req timelineRequest
	body := http.MaxBytesReader(c.Response(), c.Request().Body, maxCommandMessage)
	if err := json.NewDecoder(body).Decode(&req); err != nil || (req.Action != "undo" && req.Action != "rewind") {
		return answerClusterError(c, http.StatusBadRequest, "INVALID_REQUEST", `expected a JSON body {"action": "undo"} or {"action": "rewind", "to": N}`)
	}
	if !s.apiLimiter.allow(c.Request().RemoteAddr, s.now()) {
		c.Response().Header().Set("Retry-After", "1")
		return answerClusterError(c, http.StatusTooManyRequests, "THROTTLING_QUOTA_EXCEEDED", rateLimitMessage("client address"))
	}
	if !s.mayReplay(sess) {
		c.Response().Header().Set("Retry-After", "1")
		return answerClusterError(c, http.StatusTooManyRequests, "THROTTLING_QUOTA_EXCEEDED", errReplaysLimited.Error())
	}
	sess.precheckRewind(req.Action == "undo", req.To)
	note := "undo"
	if req.Action == "rewind" {
		note = "rewind " + strconv.Itoa(req.To)
	}
	return s.move(c, sess, note, func() (string, error) {
		if req.Action == "undo" {
			return sess.undoLocked()
		}
		return sess.rewindLocked(req.To)
	})
}

// apiOpenScript is POST/PUT .../commands.log: the script replaces the
// session, or names its failing line and leaves the session as it was.
func (s *Server) apiOpenScript(c echo.Context) error {
	sess, err := s.driverOf(c, "opening a script on a cluster")
	if sess == nil {
		return err
	}
	var req scriptRequest
	// JSON escapes a byte to at most six: the bound on the script, escaped.
	body := http.MaxBytesReader(c.Response(), c.Request().Body, 6*maxSessionScript+1024)
	if err := json.NewDecoder(body).Decode(&req); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return answerClusterError(c, http.StatusRequestEntityTooLarge, "INVALID_REQUEST", "the script is too large: a session opens at most "+strconv.Itoa(maxSessionScript)+" bytes")
		}
		return answerClusterError(c, http.StatusBadRequest, "INVALID_REQUEST", `expected a JSON body {"script": "<the lab commands, one a line>"}`)
	}
	if !s.apiLimiter.allow(c.Request().RemoteAddr, s.now()) {
		c.Response().Header().Set("Retry-After", "1")
		return answerClusterError(c, http.StatusTooManyRequests, "THROTTLING_QUOTA_EXCEEDED", rateLimitMessage("client address"))
	}
	if !s.mayReplay(sess) {
		c.Response().Header().Set("Retry-After", "1")
		return answerClusterError(c, http.StatusTooManyRequests, "THROTTLING_QUOTA_EXCEEDED", errReplaysLimited.Error())
	}
	return s.move(c, sess, "(opened a script)", func() (string, error) { return sess.openScript(req.Script) })
}

// move runs one move in time under the session's mutex and answers it:
// 200 with the new timeline, or 409 with why nothing changed.
func (s *Server) move(c echo.Context, sess *liveSession, note string, do func() (string, error)) error {
	sess.mu.Lock()
	var answer timelineAnswer
	msg, err := do()
	if err != nil {
		answer.Error = err.Error()
	}
	answer.Message = msg
	answer.Timeline = sess.timelineLocked()
	sess.mu.Unlock()
	if err != nil {
		return c.JSON(http.StatusConflict, answer)
	}
	sess.noteCommand(note, s.now(), s.logger)
	return c.JSON(http.StatusOK, answer)
}

// sharedScript is labScript's answer for one version of the command log.
type sharedScript struct {
	script string
	err    error
}

// errReplaysLimited refuses a replay past the cluster's replay bucket.
var errReplaysLimited = fmt.Errorf("this cluster was just replayed %d times: at most %d replay per second for everyone who may drive it; nothing done, try again in a moment",
	lessonReplayBurst, lessonReplaysPerSecond)

// newReplayLab makes the labs in memory that a replay checks the
// session's commands on: lab.New, a variable so that a test counts the
// replays.
var newReplayLab = lab.New

// labScript is the session as the browser lab opens it (its share link,
// /lab#s=…, and the time bar's Download): the commands that ran, those
// that failed as misuse left out (the browser lab's history keeps only
// what changed the cluster, and its replay stops at such a line). The
// session's commands are replayed on a lab in memory to find them,
// outside the session's mutex, and only when mayReplay allows (the
// cluster's replay bucket); the answer is kept until the log changes, so
// asking again costs nothing.
func (s *liveSession) labScript(mayReplay func() bool) (string, error) {
	s.mu.Lock()
	lines, ok, why := s.replayableLocked()
	log := s.commandLog()
	version, cached := log.version, log.sharedAt == log.version && log.version != 0
	shared := log.shared
	s.mu.Unlock()
	switch {
	case why != "":
		return "", errors.New(why)
	case cached:
		return shared.script, shared.err
	case !mayReplay():
		return "", errReplaysLimited
	}
	shared.script, shared.err = replayedHistory(lines, ok)
	s.mu.Lock()
	if log := s.commandLog(); log.version == version {
		log.shared, log.sharedAt = shared, version
	}
	s.mu.Unlock()
	return shared.script, shared.err
}

// replayedHistory replays lines on a lab in memory and is its history as
// a script the browser lab opens.
func replayedHistory(lines []string, ok []bool) (string, error) {
	l := newReplayLab()
	defer l.Close()
	if _, err := replayOn(l, lines, ok); err != nil {
		return "", err
	}
	if err := l.CanReplay(); err != nil {
		return "", err
	}
	return "# loglab session: open it with \"open script…\" in the browser lab\n" + strings.Join(l.History(), "\n") + "\n", nil
}

// mayReplay takes a token from sess's replay bucket (the one its lesson
// replays take: every replay holds a core, and the travels in time hold
// the session's mutex too) on the server's clock.
func (s *Server) mayReplay(sess *liveSession) bool {
	return sess.lessonReplays == nil || sess.lessonReplays.AllowN(s.now(), 1)
}
