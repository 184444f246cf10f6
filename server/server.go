// Package server is the native driver: an Echo app that serves the pages,
// the static files (including the browser lab's WASM module), and the live
// cluster that every connected browser shares over a websocket.
package server

import (
	"log/slog"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/loglab/loglab/engine/lab"
	"github.com/loglab/loglab/lessons"
	"github.com/loglab/loglab/web"
)

// Options configure a server.
type Options struct {
	// StaticDir holds app.js, style.css and the built loglab.wasm and
	// wasm_exec.js. It is read at request time, so `make wasm` while the
	// server runs takes effect on the next page load.
	StaticDir string
	Logger    *slog.Logger
	// DataDir, when set, keeps the live cluster's partition logs (Kafka
	// segment files) and its controllers' metadata log there; a server
	// restarted on it resumes the cluster. Empty keeps it in memory.
	DataDir string
	// Controllers, when set, are the HTTP API addresses of controllers
	// running as separate processes (`loglab controller`), controller 1's
	// first: the live cluster's metadata log is their quorum. Empty runs
	// the quorum inside the server.
	Controllers []string
	// InstructorToken is the instructor's secret (see roles.go); empty
	// makes a random one, which InstructorToken returns.
	InstructorToken string
	// ParticipantIdle is how long a participant cluster nobody drives or
	// watches is kept; zero is DefaultParticipantIdle.
	ParticipantIdle time.Duration
	// MaxParticipants bounds the participant clusters; zero is
	// DefaultMaxParticipants.
	MaxParticipants int
	// MaxClustersPerAddress bounds the participant clusters opened from
	// one client address; zero is DefaultMaxClustersPerAddress.
	MaxClustersPerAddress int
	// MaxPagesPerAddress and MaxPages bound the open websockets (live
	// pages) from one client address and in all; zero is
	// DefaultMaxPagesPerAddress, DefaultMaxPages.
	MaxPagesPerAddress, MaxPages int
	// DescriptorLimit is the process's RLIMIT_NOFILE (soft), the base of
	// the descriptor budget (descriptors.go); zero reads it (and raises
	// it to the hard limit). The budget applies to clusters on a data
	// directory only: in memory they open no files.
	DescriptorLimit uint64
}

// Server is the native driver's state: the instructor's cluster that
// everyone watches on /live, and the participants' own clusters.
type Server struct {
	echo     *echo.Echo
	live     *liveSession // the instructor's cluster, clusters.live
	clusters *clusterRegistry
	logger   *slog.Logger
	dataDir  string
	// instructorToken is the instructor's credential (roles.go).
	instructorToken string
	participantIdle time.Duration
	maxParticipants int
	maxPerAddress   int
	// creating serialises opening participant clusters, so that one
	// participant clicking twice gets one cluster and the limit holds.
	creating sync.Mutex
	// closed is closed by Close: it stops the janitor.
	closed    chan struct{}
	closeOnce sync.Once
	// now is the rate limiters' clock; a test freezes it.
	now        func() time.Time
	apiLimiter clientLimiters
	// pageLoads bounds page loads per address, pages the websockets
	// (pagelimits.go).
	pageLoads clientLimiters
	pageOpens clientLimiters
	pages     *pageConns
	// descriptors is the descriptor budget every cluster's commands and
	// every new participant cluster are checked against; nil in memory.
	descriptors *descriptorBudget
}

// New builds the server and runs the starter script on its live cluster.
func New(opts Options) (*Server, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	descriptors := descriptorBudgetFor(opts)
	live, err := newLiveSession(opts.DataDir, opts.Controllers, opts.Logger)
	if err != nil {
		return nil, err
	}
	live.descriptors = descriptors
	if len(opts.Controllers) > 0 {
		// Controllers in their own processes elect on their own, in real
		// time: follow them while nobody types. The server's own quorum
		// moves only with the commands (virtual time) and needs no watch.
		go live.watchQuorum()
	}
	live.id = instructorClusterID
	live.lessonReplays = newLessonReplayLimiter()
	live.lastActive = time.Now()
	s := &Server{echo: echo.New(), live: live, clusters: &clusterRegistry{live: live}, logger: opts.Logger, dataDir: opts.DataDir,
		instructorToken: opts.InstructorToken, participantIdle: opts.ParticipantIdle, maxParticipants: opts.MaxParticipants,
		closed: make(chan struct{}), now: time.Now, descriptors: descriptors}
	if s.instructorToken == "" {
		s.instructorToken = newToken()
	}
	if s.participantIdle <= 0 {
		s.participantIdle = DefaultParticipantIdle
	}
	if s.maxParticipants <= 0 {
		s.maxParticipants = DefaultMaxParticipants
	}
	if s.maxPerAddress = opts.MaxClustersPerAddress; s.maxPerAddress <= 0 {
		s.maxPerAddress = DefaultMaxClustersPerAddress
	}
	s.pageLoads, s.pageOpens = newPageLoadLimiters(), newPageOpenLimiters()
	s.pages = &pageConns{maxPerAddress: opts.MaxPagesPerAddress, max: opts.MaxPages}
	if s.pages.maxPerAddress <= 0 {
		s.pages.maxPerAddress = DefaultMaxPagesPerAddress
	}
	if s.pages.max <= 0 {
		s.pages.max = DefaultMaxPages
	}
	s.restoreParticipants()
	go s.janitor()
	e := s.echo
	e.HideBanner, e.HidePort = true, true
	// A panic in a handler answers 500 and is logged with its stack; the
	// commands themselves recover in liveSession.execute.
	e.Use(middleware.RecoverWithConfig(middleware.RecoverConfig{
		LogErrorFunc: func(c echo.Context, err error, stack []byte) error {
			opts.Logger.Error("a request panicked", "method", c.Request().Method, "path", c.Request().URL.Path, "panic", err, "stack", string(stack))
			return err
		},
	}))
	e.Use(sameOriginOnly)

	e.GET("/", s.indexPage)
	e.GET("/lab", labPage)
	e.GET("/live", s.livePage)
	e.GET("/clusters/:cluster", s.clusterPage)
	e.GET("/instructor", s.instructorPage)
	e.GET("/ws", s.websocket)
	e.POST("/api/command", s.apiCommand)
	e.GET("/api/lessons", s.apiLessons)
	e.GET("/api/lessons/:id", s.apiLesson)
	e.GET("/api/v1/clusters", s.apiListClusters)
	e.POST("/api/v1/clusters", s.apiCreateCluster)
	e.DELETE("/api/v1/clusters/:cluster", s.apiDeleteCluster)
	e.POST("/api/v1/clusters/:cluster/commands", s.apiClusterCommand)
	e.GET("/api/v1/clusters/:cluster/commands.log", s.apiCommandLog)
	s.timelineRoutes(e)
	e.GET("/api/v1/clusters/:cluster/topics/:topic/partitions/:partition/records", s.apiRecords)
	// The WASM module is many MB and compresses about 6x; static files, and
	// only those, are sent compressed (precompressed by `make wasm`, else on
	// the fly): websockets and the sendfile fetch path must see the raw
	// connection.
	e.Add(http.MethodGet, "/static/*", newStaticFiles(opts.StaticDir).serve)
	return s, nil
}

// Handler is the server as an http.Handler, for http.Server and tests.
func (s *Server) Handler() http.Handler { return s.echo }

// InstructorToken is the instructor's secret: `loglab serve` prints it in
// the instructor's URL.
func (s *Server) InstructorToken() string { return s.instructorToken }

// Close disconnects every page and shuts every cluster down cleanly
// (flushing its logs, stopping its controllers); the first error is
// returned, after every cluster was closed.
func (s *Server) Close() error {
	var first error
	s.closeOnce.Do(func() {
		// Under creating: a cluster being opened is either listed below
		// or refused, never opened after the others were closed.
		s.creating.Lock()
		close(s.closed)
		s.creating.Unlock()
		for _, sess := range s.clusters.all() {
			if err := sess.shutdown(); err != nil && first == nil {
				first = err
			}
		}
	})
	return first
}

// render writes a templ component as an HTML response.
func render(c echo.Context, status int, component templ.Component) error {
	html, err := web.RenderString(c.Request().Context(), component)
	if err != nil {
		return err
	}
	return c.HTML(status, html)
}

// indexPage leads with the lesson catalogue, rendered from the embedded
// lessons, grouped by module (catalogue.go).
func (s *Server) indexPage(c echo.Context) error {
	all, err := lessons.All()
	if err != nil {
		// The lessons are tested before they are built in; a broken one
		// must still not take the sandboxes down with it.
		s.logger.Error("loading the lessons", "err", err)
	}
	return render(c, http.StatusOK, web.IndexPage(catalogueCards(all)))
}

// labPage is the browser lab; /lab?lesson=ID opens that lesson (an
// unknown id is the sandbox, and &step=N is read by the page's player).
func labPage(c echo.Context) error {
	id := c.QueryParam("lesson")
	if _, err := lessons.Find(id); err != nil {
		id = ""
	}
	return render(c, http.StatusOK, web.LabPage(id, lab.Commands()))
}

// commandRequest is the body of POST /api/command and of websocket messages.
type commandRequest struct {
	Type string `json:"type,omitempty"` // "command" on the websocket
	Line string `json:"line"`
}

type commandResponse struct {
	Output string `json:"output"`
	OK     bool   `json:"ok"`
}

// apiCommand runs one lab command on the instructor's cluster (the API
// before clusters had ids: POST /api/v1/clusters/live/commands is the
// same).
func (s *Server) apiCommand(c echo.Context) error {
	return s.commandOn(c, s.live)
}
