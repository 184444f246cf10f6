package server

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/loglab/loglab/engine/lab"
	"github.com/loglab/loglab/engine/view"
	"github.com/loglab/loglab/lessons"
	"github.com/loglab/loglab/web"
)

// historyShown bounds the transcript a freshly opened page receives (so
// does maxHistoryBytes).
const historyShown = 200

// liveSession is the server's shared cluster. One mutex serialises commands,
// and updates are published while it is held, so every subscriber receives
// them in the order the engine applied them.
type liveSession struct {
	// id names the cluster in URLs: "live" for the instructor's, "p-…"
	// for a participant's. owner is the participant's ownerKey (empty: the
	// instructor's cluster) and ownerName what they called themselves;
	// none of the three changes after the session is made.
	id, owner, ownerName string
	// openedFrom is the client address that opened a participant cluster
	// (empty for the instructor's and for one restored from disk).
	openedFrom string
	mu         sync.Mutex
	// lastCommand and lastActive are the newest command a driver ran and
	// when (s.mu held): the instructor's overview shows them, and an idle
	// participant cluster is removed (see participants.go).
	lastCommand string
	lastActive  time.Time
	// benchDoneAt is when `bench fetch` last finished on this cluster
	// (bench_fetch.go).
	benchDoneAt time.Time
	// lessonReplays bounds this cluster's lesson replays (replaysLesson)
	// and its time bar's (api_timeline.go): each cluster has its own
	// mutex, so one participant replaying in a loop holds up their own
	// cluster's pages only.
	lessonReplays *rate.Limiter
	lab           *lab.Lab
	dataDir       string      // where the cluster's files are; empty: in memory
	history       []web.Entry // the newest entries, see trimHistory
	subscribers   []*subscriber
	updates       updateStream // the ids and views published; see updates.go
	updateStats   updateStats
	stop          chan struct{} // closed by closeAll: ends watchQuorum, refuses what comes later
	logger        *slog.Logger
	// controllers are the addresses of controllers in their own
	// processes (Options.Controllers): every lab the session makes,
	// a lesson's included, uses their quorum.
	controllers []string
	// lesson is the lesson the room plays (instructor mode), nil in free
	// play; see live_lesson.go.
	lesson *lessons.Session
	// predictions are the participants' own answers to the question the
	// lesson asks now (predict.go); made on first use.
	predictions *roomPredictions
	// runLine runs one free-play command on lab; a field so that a test
	// can make a command panic and see the session survive it.
	runLine func(line string) (string, error)
	// makeLessonLab makes the labs a lesson replays on; nil is newLab. A
	// field so that a test can make a lesson's replay panic.
	makeLessonLab func(dataDir string, controllers []string) *lab.Lab
	// drawingSnapshot, when set, runs as a page's snapshot is about to be
	// drawn: a test checks that the cluster's mutex is free meanwhile.
	drawingSnapshot func()
	// commands is the session's command log (commandlog.go), realtime
	// its real-time driver (realtime.go); both made on first use.
	commands *commandLog
	realtime *realtimeDriver
	// descriptors is the server's descriptor budget (descriptors.go),
	// nil in memory: a command that opens files is checked against it.
	descriptors *descriptorBudget
	// broken says why the session refuses everything: a failed replay
	// left its cluster's files where it cannot run (rewind.go's
	// breakLocked); empty otherwise.
	broken string
}

// errClusterClosed answers a command that reached a cluster as it was
// removed (idle) or the server was shutting down.
const errClusterClosed = "error: this cluster is closed: it was removed after being idle, or the server is shutting down; nothing ran"

// quorumCheckEvery is how often an idle live cluster whose controllers
// are separate processes asks them for an election they held on their
// own (they run on real time).
const quorumCheckEvery = time.Second

// watchQuorum follows controllers that are separate processes (serve
// -controllers): they elect in real time, so a new leader can appear
// while nobody types; the cluster takes it as its active controller and
// every page sees it. It runs only for such controllers: the simulated
// quorum elects only in virtual time, when a command moves it.
func (s *liveSession) watchQuorum() {
	t := time.NewTicker(quorumCheckEvery)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			s.followQuorum()
		case <-s.stop:
			return
		}
	}
}

// followQuorum does one check of watchQuorum; it reports whether it
// pushed a view.
func (s *liveSession) followQuorum() (pushed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	// This goroutine has no caller to recover for it: a panic here would
	// end the whole server.
	defer func() {
		if p := recover(); p != nil {
			s.logger.Error("following the quorum panicked", "panic", p, "stack", string(debug.Stack()))
			pushed = false
		}
	}()
	c := s.lab.Cluster()
	if c == nil || !c.FollowRemoteQuorum() {
		return false
	}
	return s.publishView(nil, false) == nil
}

func newLiveSession(dataDir string, controllers []string, logger *slog.Logger) (*liveSession, error) {
	l, start, err := openLab(dataDir, logger)
	if err != nil {
		return nil, err
	}
	if len(controllers) > 0 {
		l.SetQuorum(remoteQuorum(controllers))
	}
	s := &liveSession{lab: l, dataDir: dataDir, controllers: controllers, stop: make(chan struct{}), logger: logger}
	// The lab changes when a lesson opens: run on whichever is live.
	s.runLine = func(line string) (string, error) { return s.lab.Run(line) }
	for _, line := range start {
		// Controllers in their own processes keep their metadata across
		// server restarts: the starter topic may be there already.
		if e := s.run(line); !e.OK && !strings.Contains(e.Output, "TOPIC_ALREADY_EXISTS") {
			l.Close()
			err := fmt.Errorf("starting the live cluster: %q failed: %s", line, e.Output)
			if dataDir != "" {
				err = fmt.Errorf("%w\nthe cluster's files in %s may be damaged: restore them from a backup, or start loglab on an empty data directory", err, dataDir)
			}
			return nil, err
		}
	}
	return s, nil
}

// run executes a command and publishes the result to every subscriber.
func (s *liveSession) run(line string) web.Entry { return s.runFrom(nil, line) }

// runFrom is run for a page's command (sub nil: an API client's). While a
// lesson is open the command goes through the lesson, which may refuse it
// (before a prediction is answered): then only sub hears of it, and every
// page receives the lesson status after a command that ran.
func (s *liveSession) runFrom(sub *subscriber, line string) web.Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closedLocked() {
		return web.Entry{Command: strings.TrimSpace(line), Output: errClusterClosed}
	}
	if s.broken != "" {
		return web.Entry{Command: strings.TrimSpace(line), Output: "error: " + s.broken}
	}
	if err := s.descriptorsAllow(line); err != nil {
		// Refused before the lab saw it, like a rate-limited command: not
		// logged (a replay would run it), told to its sender alone.
		e := web.Entry{Command: strings.TrimSpace(line), Output: "error: " + err.Error()}
		if sub != nil {
			s.tellLocked(sub, e)
		}
		return e
	}
	if s.lesson != nil {
		e, ran := s.runInLesson(line)
		if !ran {
			if sub != nil {
				s.tellLocked(sub, e)
			}
			return e
		}
		e = s.publishEntry(e)
		s.publishLesson()
		return e
	}
	return s.publishEntry(s.execute(line))
}

// publishEntry adds e to the history and pushes it with the view, with
// s.mu held; it returns e with a rendering failure added to its output.
func (s *liveSession) publishEntry(e web.Entry) web.Entry {
	shown := shownEntry(e)
	s.history = trimHistory(append(s.history, shown))
	if renderErr := s.publishView([]web.Entry{shown}, false); renderErr != nil {
		e.OK = false
		e.Output += "\nerror: rendering the update: " + renderErr.Error()
	}
	return e
}

// commandPanicked turns a command's panic p (nil: none) into its
// entry's error, logged with its stack; it reports whether there was one.
func (s *liveSession) commandPanicked(e *web.Entry, p any) bool {
	if p == nil {
		return false
	}
	s.logger.Error("a lab command panicked", "command", e.Command, "panic", p, "stack", string(debug.Stack()))
	e.OK = false
	e.Output = fmt.Sprintf("error: internal error: the command panicked (%v); the server logged it and carries on", p)
	return true
}

// execute runs one command, with s.mu held. A panic in the engine is a
// bug, but one command must not kill the workshop's server: it is logged
// with its stack and answered as the command's error, and the mutex is
// released by run's defer, so the next command runs. What the panicking
// command changed before it panicked stays changed.
func (s *liveSession) execute(line string) (e web.Entry) {
	e.Command = strings.TrimSpace(line)
	native, args := nativeCommandFor(line)
	defer func() {
		panicked := s.commandPanicked(&e, recover())
		s.logCommand(e.Command, native != nil, e.OK, panicked)
	}()
	var out string
	var err error
	if native != nil {
		out, err = native.run(s, args)
	} else {
		out, err = s.runLine(line)
		if err == nil && e.Command == "help" {
			out += nativeHelp()
		}
	}
	e.Output, e.OK = out, err == nil
	if err != nil {
		e.Output = "error: " + err.Error()
	} else if err := rememberCluster(s.dataDir, line); err != nil {
		e.Output += "\nwarning: the data directory will not remember this cluster: " + err.Error()
	}
	// The whole output, before the transcript cuts it: an operator reads
	// the server log, not every viewer's transcript.
	logStorageAlarms(s.logger, s.dataDir, e.Output)
	return e
}

// renderUpdate is the next update of the stream: entries drawn, and the
// view's fragments that changed (nil: nothing changed), with s.mu held.
// Rendering is not tied to any one request: every subscriber gets it.
func (s *liveSession) renderUpdate(entries []web.Entry, clear bool) (*viewChange, error) {
	ctx := context.Background()
	html, err := renderEntries(ctx, entries)
	if err != nil {
		return nil, err
	}
	frags, err := web.RenderFragments(ctx, s.lab.View())
	if err != nil {
		return nil, err
	}
	return s.updates.next(ctx, html, clear, frags)
}

// snapshotDraft is the whole state as of the last update, for a page
// that (re)connects with nothing to build on, taken with s.mu held and
// drawn (snapshotDraft.render) after it is released.
func (s *liveSession) snapshotDraft() (*snapshotDraft, error) {
	return s.updates.snapshotDraft(s.history, func() ([]web.RenderedFragment, error) {
		return web.RenderFragments(context.Background(), s.lab.View())
	})
}

// snapshot is what a newly opened page renders before any update arrives.
func (s *liveSession) snapshot() (view.Cluster, []web.Entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lab.View(), append([]web.Entry(nil), s.history...)
}
