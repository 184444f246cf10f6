package server

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/loglab/loglab/web"
)

// livePage is /live, the instructor's cluster; /live?token=T is the URL
// `loglab serve` prints for the instructor.
func (s *Server) livePage(c echo.Context) error {
	return s.showCluster(c, s.live)
}

// clusterPage is /clusters/{id}: any cluster, for anyone to watch.
func (s *Server) clusterPage(c echo.Context) error {
	sess := s.clusters.get(c.Param("cluster"))
	if sess == nil {
		return echo.NewHTTPError(http.StatusNotFound, "no such cluster on this server: an idle participant cluster is removed after "+s.participantIdle.String())
	}
	return s.showCluster(c, sess)
}

// showCluster renders a cluster's page for the visitor. A visit with the
// instructor's ?token= leaves a cookie and goes to the same page without
// the token (so it is not left in the history or shown on a projector);
// a visitor with no credential is given a participant's.
func (s *Server) showCluster(c echo.Context, sess *liveSession) error {
	if refused, err := s.pageLoadRefused(c); refused {
		return err
	}
	r, done, err := s.visitor(c)
	if done {
		return err
	}
	v, history := sess.snapshot()
	info := web.LiveInfo{ClusterID: sess.id, OwnerName: sess.ownerName, CanDrive: r.mayDrive(sess), Instructor: r.instructor, Commands: consoleCommands()}
	if own := s.clusters.ownedBy(r.participant); own != nil {
		info.OwnCluster = own.id
	}
	return render(c, http.StatusOK, web.LivePage(v, history, info))
}

// visitor is who opens a page, after handling ?token=; done means the
// response (a redirect or a refusal) was written.
func (s *Server) visitor(c echo.Context) (r role, done bool, err error) {
	if token := c.QueryParam("token"); token != "" {
		if !s.isInstructorToken(token) {
			return r, true, echo.NewHTTPError(http.StatusForbidden, "that is not this server's instructor token (loglab serve prints it at start)")
		}
		setCookie(c, instructorCookie, token)
		u := *c.Request().URL
		q := u.Query()
		q.Del("token")
		u.RawQuery = q.Encode()
		return r, true, c.Redirect(http.StatusSeeOther, u.RequestURI())
	}
	r = s.roleOf(c.Request())
	if !r.instructor && r.participant == "" {
		token := newToken()
		setCookie(c, participantCookie, token)
		r.participant = ownerKey(token)
	}
	return r, false, nil
}

// instructorPage is /instructor, the overview of every cluster: its owner,
// the lesson and step it is at, when it was last active, its health
// (invariant violations, brokers down) and last command; only the
// instructor sees it (participants' names and commands are theirs).
func (s *Server) instructorPage(c echo.Context) error {
	if refused, err := s.pageLoadRefused(c); refused {
		return err
	}
	r, done, err := s.visitor(c)
	if done {
		return err
	}
	if !r.instructor {
		return render(c, http.StatusForbidden, web.RefusedPage(
			"The overview of every cluster is the instructor's: it shows the participants' names and commands. The instructor opens /instructor?token=… with the token `loglab serve` printed.",
			"所有集群的总览只属于讲师：它会显示学员的名字和命令。讲师用 `loglab serve` 打印的 token 打开 /instructor?token=…。"))
	}
	all := s.clusters.all()
	rows := make([]web.ClusterRow, len(all))
	for i, sess := range all {
		sum := sess.summary()
		rows[i] = web.ClusterRow{ID: sum.ID, Owner: sum.Owner, Topics: sum.Topics, LastCommand: sum.LastCommand, LastActive: sum.LastActive, Viewers: sum.Viewers}
		if l := sum.Lesson; l != nil {
			rows[i].Lesson = &web.OverviewLesson{Number: l.Number, ID: l.ID, TitleEn: l.Title.En, TitleZh: l.Title.Zh, Step: l.Step, Steps: l.Steps, StepName: l.StepName, Goal: l.Goal}
		}
		if h := sum.Health; h != nil {
			rows[i].Health = &web.OverviewHealth{Violations: h.Violations, Brokers: h.Brokers, BrokersDown: h.BrokersDown}
		}
	}
	// Each summary was taken under its own cluster's lock, one after the
	// other; the page is drawn with none held, and "12 s ago" is the
	// server's wall clock, not any cluster's virtual time.
	return render(c, http.StatusOK, web.InstructorPage(rows, s.now()))
}
