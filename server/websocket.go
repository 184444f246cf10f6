package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"
	"github.com/labstack/echo/v4"
	"golang.org/x/time/rate"

	"github.com/loglab/loglab/web"
)

const (
	maxCommandMessage = 4096 // bytes: a command line, not a payload
	writeTimeout      = 5 * time.Second
)

// websocket streams live updates to one page and takes its commands.
// coder/websocket checks that the Origin matches the Host, so another site
// cannot drive a workshop's cluster from a visitor's browser.
func (s *Server) websocket(c echo.Context) error {
	// ?cluster= picks the cluster to watch (the instructor's by default);
	// the page's credentials, read once here, decide whether its commands
	// run on it.
	id := c.QueryParam("cluster")
	if id == "" {
		id = instructorClusterID
	}
	sess := s.clusters.get(id)
	if sess == nil {
		return echo.NewHTTPError(http.StatusNotFound, "no cluster "+strconv.Quote(id)+" on this server")
	}
	who := s.roleOf(c.Request())
	// Refused before the upgrade, with a status and words the page's
	// console shows; the page retries with backoff.
	if err := s.pageOpenRefused(c.Request(), who.instructor); err != nil {
		c.Response().Header().Set("Retry-After", "1")
		return err
	}
	release, status, err := s.pages.admit(clientHost(c.Request().RemoteAddr), who.instructor)
	if err != nil {
		c.Response().Header().Set("Retry-After", "10")
		return echo.NewHTTPError(status, err.Error())
	}
	defer release()
	// Updates are fragments of the view's HTML (a whole view is tens of
	// KB), alike from one to the next: permessage-deflate sends about a
	// sixth of them (about a millisecond of CPU per page for a whole view).
	// Without context takeover each message is compressed alone, with a
	// pooled writer: no per-page memory held between updates. The read
	// limit applies to the inflated message.
	conn, err := websocket.Accept(c.Response(), c.Request(), &websocket.AcceptOptions{CompressionMode: websocket.CompressionNoContextTakeover})
	if err != nil {
		return nil // Accept has already written the HTTP error
	}
	defer conn.CloseNow()
	conn.SetReadLimit(maxCommandMessage)

	ctx, cancel := context.WithCancel(c.Request().Context())
	defer cancel()
	closeSlow := func() {
		conn.Close(websocket.StatusPolicyViolation, "too slow to keep up with updates")
	}
	var sub *subscriber
	v := viewerOf(who, sess)
	if since, resuming := sinceParam(c.QueryParam("since")); resuming {
		sub = sess.resumeAs(closeSlow, since, v)
	} else {
		sub = sess.subscribeAs(closeSlow, v)
	}
	defer sess.unsubscribe(sub)

	go s.readCommands(ctx, cancel, conn, &page{sess: sess, sub: sub, role: who})
	go keepAlive(ctx, cancel, conn, &sess.updateStats, pingEvery, pongWait)
	for {
		select {
		case <-sub.ready:
			if err := writeQueued(ctx, conn, sub.take(), &sess.updateStats); err != nil {
				return nil
			}
		case <-ctx.Done():
			return nil
		}
	}
}

// readCommands runs each command the page sends. Results come back to the
// page, and to every other page, as updates through the subscription.
// page is one websocket's end: the cluster it watches, its subscription
// and who opened it.
type page struct {
	sess *liveSession
	sub  *subscriber
	role role
}

func (s *Server) readCommands(ctx context.Context, cancel func(), conn *websocket.Conn, p *page) {
	defer cancel()
	limiter := newCommandLimiter()
	for {
		_, data, err := conn.Read(ctx)
		if err != nil {
			return
		}
		if !s.handleCommand(conn, p, limiter, data) {
			return
		}
	}
}

// handleCommand runs one websocket message; it reports whether to read
// the next. The command's own panics come back as its error entry (see
// liveSession.execute); anything else that panics here is logged and
// ends this page's connection with an internal error, which the page
// shows, while the server and the other pages carry on.
func (s *Server) handleCommand(conn *websocket.Conn, p *page, limiter *rate.Limiter, data []byte) (more bool) {
	defer func() {
		if p := recover(); p != nil {
			s.logger.Error("a websocket command panicked", "panic", p, "stack", string(debug.Stack()))
			conn.Close(websocket.StatusInternalError, "internal error: the server logged it; the page reconnects")
			more = false
		}
	}()
	var kind struct {
		Type string `json:"type"`
	}
	var req commandRequest
	if json.Unmarshal(data, &kind) != nil || kind.Type != "lesson" && kind.Type != "predict" && (kind.Type != "command" || json.Unmarshal(data, &req) != nil) {
		conn.Close(websocket.StatusUnsupportedData, errors.New(`expected {"type":"command","line":"..."}, {"type":"lesson","action":"..."} or {"type":"predict","value":"..."}`).Error())
		return false
	}
	// A lesson action is one message like a command: opening a lesson
	// replays steps, so a page looping on it must not hold the room up
	// either.
	allowed := limiter.AllowN(s.now(), 1)
	switch kind.Type {
	case "lesson":
		s.handleLesson(p, data, allowed)
		return true
	case "predict":
		// A prediction drives nothing: anyone watching a lesson makes
		// their own, under the same per-page budget as a command.
		s.handlePredict(p, data, allowed)
		return true
	}
	if !allowed {
		// Only this page hears of it: the others never saw the command.
		p.sess.tell(p.sub, web.Entry{Command: strings.TrimSpace(req.Line), Output: rateLimitMessage("page")})
		return true
	}
	s.runAs(p.sess, p.role, p.sub, req.Line)
	return true
}

// handleLesson applies a lesson action; a malformed or rate-limited one is
// refused to its sender alone, as the session refuses a bad action.
func (s *Server) handleLesson(p *page, data []byte, allowed bool) {
	var req lessonRequest
	refuse := func(msg string) {
		p.sess.mu.Lock()
		defer p.sess.mu.Unlock()
		p.sess.send(p.sub, p.sess.lessonMessage(msg))
	}
	switch {
	case !p.role.mayDrive(p.sess):
		// A lesson drives the cluster: the same rule as a command.
		refuse(strings.TrimPrefix(refusalFor(p.sess, p.role), "error: "))
	case json.Unmarshal(data, &req) != nil:
		refuse(`expected {"type":"lesson","action":"open|answer|next|back|reset|goto|close", ...}`)
	case !allowed:
		refuse(rateLimitMessage("page") + " (a lesson action counts as one)")
	case replaysLesson(req.Action) && !p.sess.lessonReplays.AllowN(s.now(), 1):
		refuse(fmt.Sprintf("this cluster's lesson was just replayed %d times: at most %d replay per second for everyone watching it; nothing done, try again in a moment", lessonReplayBurst, lessonReplaysPerSecond))
	default:
		p.sess.lessonAction(p.sub, req)
		p.sess.noteCommand(strings.TrimSpace("lesson "+req.Action+" "+req.Lesson), s.now(), s.logger)
	}
}
