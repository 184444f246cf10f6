package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/loglab/loglab/web"
)

// clusterError is the JSON body of a refused cluster request, named as
// Kafka names the nearest error (CLUSTER_AUTHORIZATION_FAILED) or, for
// what Kafka has no word for, in its style.
type clusterError struct {
	Error   string `json:"error"`
	Message string `json:"message"`
}

func answerClusterError(c echo.Context, status int, name, message string) error {
	return c.JSON(status, clusterError{Error: name, Message: message})
}

// runAs runs a command from r on sess, when r may drive it; else only sub
// (the page that typed it, nil for an API client) hears the refusal. ran
// reports whether the command was run.
func (s *Server) runAs(sess *liveSession, r role, sub *subscriber, line string) (e web.Entry, ran bool) {
	if !r.mayDrive(sess) {
		e = web.Entry{Command: strings.TrimSpace(line), Output: refusalFor(sess, r)}
		if sub != nil {
			sess.tell(sub, e)
		}
		return e, false
	}
	e = sess.runFrom(sub, line)
	sess.noteCommand(e.Command, s.now(), s.logger)
	return e, true
}

// noteCommand records a driver's command for the overview and the idle
// check, and saves it with a participant's record.
func (s *liveSession) noteCommand(line string, now time.Time, logger interface {
	Warn(string, ...any)
}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastCommand, s.lastActive = line, now
	if err := s.saveParticipant(); err != nil {
		logger.Warn("saving a participant cluster's record", "cluster", s.id, "err", err)
	}
}

// commandOn is POST /api/v1/clusters/{cluster}/commands (and the older POST
// /api/command): one lab command, run as if typed into the console of the
// cluster's page, which every page watching it then shows.
func (s *Server) commandOn(c echo.Context, sess *liveSession) error {
	var req commandRequest
	body := http.MaxBytesReader(c.Response(), c.Request().Body, maxCommandMessage)
	if err := json.NewDecoder(body).Decode(&req); err != nil || strings.TrimSpace(req.Line) == "" {
		return echo.NewHTTPError(http.StatusBadRequest, `expected a JSON body {"line": "<lab command>"}`)
	}
	if !s.apiLimiter.allow(c.Request().RemoteAddr, s.now()) {
		c.Response().Header().Set("Retry-After", "1")
		return c.JSON(http.StatusTooManyRequests, commandResponse{Output: rateLimitMessage("client address"), OK: false})
	}
	e, ran := s.runAs(sess, s.roleOf(c.Request()), nil, req.Line)
	if !ran {
		return answerClusterError(c, http.StatusForbidden, "CLUSTER_AUTHORIZATION_FAILED", strings.TrimPrefix(e.Output, "error: CLUSTER_AUTHORIZATION_FAILED: "))
	}
	return c.JSON(http.StatusOK, commandResponse{Output: e.Output, OK: e.OK})
}

// clusterParam finds the cluster a request's :cluster names, or answers
// UNKNOWN_CLUSTER (404) itself.
func (s *Server) clusterParam(c echo.Context) (*liveSession, error) {
	id := c.Param("cluster")
	if sess := s.clusters.get(id); sess != nil {
		return sess, nil
	}
	return nil, answerClusterError(c, http.StatusNotFound, "UNKNOWN_CLUSTER", fmt.Sprintf("no cluster %q on this server (GET /api/v1/clusters lists them; an idle participant cluster is removed after %v)", id, s.participantIdle))
}

func (s *Server) apiClusterCommand(c echo.Context) error {
	sess, err := s.clusterParam(c)
	if sess == nil {
		return err
	}
	return s.commandOn(c, sess)
}

// apiListClusters is GET /api/v1/clusters: every cluster, the instructor's
// first, then the participants' in the order they were opened. What each
// participant typed and when is the instructor's to see, as on the
// overview; anyone else gets the ids, owners and topics, to watch them.
func (s *Server) apiListClusters(c echo.Context) error {
	instructor := s.roleOf(c.Request()).instructor
	all := s.clusters.all()
	list := make([]clusterSummary, len(all))
	for i, sess := range all {
		list[i] = sess.summary()
		if !instructor {
			list[i] = clusterSummary{ID: list[i].ID, Owner: list[i].Owner, Topics: list[i].Topics}
		}
	}
	return c.JSON(http.StatusOK, list)
}

// apiDeleteCluster is DELETE /api/v1/clusters/{id}: its owner or the
// instructor removes a participant cluster, with its files, at once.
func (s *Server) apiDeleteCluster(c echo.Context) error {
	sess, err := s.clusterParam(c)
	if sess == nil {
		return err
	}
	r := s.roleOf(c.Request())
	switch {
	case sess == s.live:
		return answerClusterError(c, http.StatusBadRequest, "INVALID_REQUEST", "the instructor's cluster is not removed: `cluster` starts it afresh")
	case !r.mayDrive(sess):
		return answerClusterError(c, http.StatusForbidden, "CLUSTER_AUTHORIZATION_FAILED", "only the cluster's owner or the instructor removes it")
	}
	s.removeCluster(sess)
	s.logger.Info("a participant cluster was removed on request", "cluster", sess.id, "name", sess.ownerName, "byInstructor", r.instructor)
	return c.NoContent(http.StatusNoContent)
}

// createClusterRequest is the body of POST /api/v1/clusters.
type createClusterRequest struct {
	Name string `json:"name"`
}

type createClusterResponse struct {
	ID    string `json:"id"`
	Token string `json:"token,omitempty"`
	URL   string `json:"url"`
}

// apiCreateCluster is POST /api/v1/clusters: the caller's own cluster,
// opened for them (201) or the one they have (200). A caller with no
// participant token gets one: in the answer, and as a cookie for a page.
func (s *Server) apiCreateCluster(c echo.Context) error {
	var req createClusterRequest
	body := http.MaxBytesReader(c.Response(), c.Request().Body, maxCommandMessage)
	if err := json.NewDecoder(body).Decode(&req); err != nil {
		return answerClusterError(c, http.StatusBadRequest, "INVALID_REQUEST", `expected a JSON body {"name": "<your name>"} (the name may be empty)`)
	}
	r := s.roleOf(c.Request())
	if r.instructor {
		return answerClusterError(c, http.StatusBadRequest, "INVALID_REQUEST", "the instructor's cluster is /live; participant clusters are opened by participants (a browser without the instructor's token, or an API client without it)")
	}
	token := ""
	if r.participant == "" {
		token = newToken()
		r.participant = ownerKey(token)
	}
	if !s.apiLimiter.allow(c.Request().RemoteAddr, s.now()) {
		c.Response().Header().Set("Retry-After", "1")
		return answerClusterError(c, http.StatusTooManyRequests, "THROTTLING_QUOTA_EXCEEDED", rateLimitMessage("client address"))
	}
	sess, created, err := s.createParticipantCluster(r.participant, req.Name, clientHost(c.Request().RemoteAddr))
	switch {
	case errors.Is(err, errTooManyClusters):
		return answerClusterError(c, http.StatusServiceUnavailable, "CLUSTER_LIMIT_REACHED", fmt.Sprintf("this server runs at most %d participant clusters (serve -max-participants); ask the instructor", s.maxParticipants))
	case errors.Is(err, errTooManyOfYours):
		return answerClusterError(c, http.StatusTooManyRequests, "CLUSTER_LIMIT_REACHED", fmt.Sprintf("%d participant clusters were opened from your address already (serve -max-clusters-per-address): use one of them, or ask the instructor", s.maxPerAddress))
	case errors.Is(err, errDescriptorBudget):
		return answerClusterError(c, http.StatusServiceUnavailable, errDescriptorBudget.Error(), strings.TrimPrefix(err.Error(), errDescriptorBudget.Error()+": "))
	case errors.Is(err, errServerClosing):
		return answerClusterError(c, http.StatusServiceUnavailable, "UNKNOWN_SERVER_ERROR", "the server is shutting down")
	case errors.Is(err, errBadName):
		return answerClusterError(c, http.StatusBadRequest, "INVALID_REQUEST", strings.TrimPrefix(err.Error(), errBadName.Error()+": "))
	case err != nil:
		s.logger.Error("opening a participant cluster", "err", err)
		return answerClusterError(c, http.StatusInternalServerError, "UNKNOWN_SERVER_ERROR", "the cluster could not be opened: "+err.Error())
	}
	if token != "" {
		setCookie(c, participantCookie, token)
		// A browser (it says where a request comes from) keeps the token
		// in its HttpOnly cookie: the answer does not hand it to scripts.
		if c.Request().Header.Get("Sec-Fetch-Site") != "" {
			token = ""
		}
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return c.JSON(status, createClusterResponse{ID: sess.id, Token: token, URL: "/clusters/" + sess.id})
}

// apiCommandLog is GET /api/v1/clusters/{id}/commands.log: the cluster's
// command log since its cluster last started, as a lab script that
// `loglab script` (or the browser lab's console) replays. Its owner's and
// the instructor's: what a participant typed is theirs, as on the
// overview. With ?for=lab it is the session as the browser lab opens it
// (labScript), for a share link. X-Loglab-Log-Whole says whether it holds everything since the
// cluster started (a restart or the memory bound cut it).
func (s *Server) apiCommandLog(c echo.Context) error {
	sess, err := s.clusterParam(c)
	if sess == nil {
		return err
	}
	if !s.roleOf(c.Request()).mayDrive(sess) {
		return answerClusterError(c, http.StatusForbidden, "CLUSTER_AUTHORIZATION_FAILED", "a cluster's command log is its owner's and the instructor's")
	}
	if c.QueryParam("for") == "lab" {
		script, err := sess.labScript(func() bool { return s.mayReplay(sess) })
		if errors.Is(err, errReplaysLimited) {
			c.Response().Header().Set("Retry-After", "1")
			return answerClusterError(c, http.StatusTooManyRequests, "THROTTLING_QUOTA_EXCEEDED", err.Error())
		}
		if err != nil {
			return answerClusterError(c, http.StatusConflict, "INVALID_REQUEST", "the session cannot be opened in the browser lab: "+err.Error())
		}
		c.Response().Header().Set("X-Loglab-Log-Whole", "true")
		return c.Blob(http.StatusOK, "text/plain; charset=utf-8", []byte(script))
	}
	text, whole := sess.commandLogText()
	h := c.Response().Header()
	h.Set("Content-Disposition", `attachment; filename="loglab-`+sess.id+`.lab"`)
	h.Set("X-Loglab-Log-Whole", fmt.Sprint(whole))
	return c.Blob(http.StatusOK, "text/plain; charset=utf-8", []byte(text))
}
