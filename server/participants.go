package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Participant clusters: each participant may open one cluster of their own
// on the server, a whole lab (brokers, controllers, files) apart from
// everyone else's. With a data directory, participant P's cluster keeps its
// files under <data-dir>/participants/P/, laid out as the instructor's are
// at the root, beside participantFile, which says whose it is; a restarted
// server opens every one of them again.
const (
	participantsDir = "participants"
	participantFile = "loglab-participant.json"
	// DefaultParticipantIdle is how long a participant cluster nobody
	// drives or watches is kept (serve's -participant-idle).
	DefaultParticipantIdle = 2 * time.Hour
	// DefaultMaxParticipants bounds the clusters a server runs for
	// participants: each is a whole cluster (brokers, a controller quorum).
	DefaultMaxParticipants = 60
	// DefaultMaxClustersPerAddress bounds the clusters opened from one
	// client address: a participant token costs nothing to make, so
	// without it one script could take every place in the room.
	DefaultMaxClustersPerAddress = 3
	maxParticipantName           = 40
	// idleCheckEvery is how often the janitor looks for idle clusters.
	idleCheckEvery = time.Minute
	// restoreGrace is how long a restored cluster idle for longer than
	// participantIdle is kept: time for its owner to come back to it.
	restoreGrace = 10 * time.Minute
)

// participantIDPattern is what newParticipantID makes; a directory under
// participants/ with another name is not loglab's and is left alone.
var participantIDPattern = regexp.MustCompile(`^p-[0-9a-f]{8}$`)

func newParticipantID() string { return "p-" + newToken()[:8] }

// participantRecord is participantFile: the owner's name and token hash,
// and what the overview shows, so a restart shows it too.
type participantRecord struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	Owner       string    `json:"owner"` // ownerKey of the participant's token
	LastCommand string    `json:"lastCommand"`
	LastActive  time.Time `json:"lastActive"`
	// OpenedFrom is the client address that opened the cluster: the
	// per-address limit counts restored clusters too, or a restart would
	// hand every address its places again.
	OpenedFrom string `json:"openedFrom,omitempty"`
}

// errTooManyClusters refuses a cluster beyond Options.MaxParticipants;
// errBadName a name participantName refuses.
var (
	errTooManyClusters = errors.New("CLUSTER_LIMIT_REACHED")
	errBadName         = errors.New("bad name")
	errServerClosing   = errors.New("the server is shutting down")
	errTooManyOfYours  = errors.New("too many clusters from one address")
)

// participantName checks the name a participant gives their cluster; an
// empty one becomes "participant N".
func participantName(name string, n int) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return fmt.Sprintf("participant %d", n), nil
	}
	if !utf8.ValidString(name) || utf8.RuneCountInString(name) > maxParticipantName {
		return "", fmt.Errorf("%w: a name is at most %d characters of text", errBadName, maxParticipantName)
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return "", fmt.Errorf("%w: a name may not hold control characters", errBadName)
		}
		// Format characters draw nothing yet change what others see:
		// right-to-left overrides reorder the names around them on the
		// instructor's page, zero-width ones make two names look alike.
		if unicode.Is(unicode.Cf, r) {
			return "", fmt.Errorf("%w: a name may not hold invisible or direction-changing characters (U+%04X)", errBadName, r)
		}
	}
	if reservedName(name) {
		return "", fmt.Errorf("%w: %q is a name the room would take for someone else's; choose another", errBadName, name)
	}
	return name, nil
}

// reservedName reports whether name is one a participant could pass off
// as the instructor's, loglab's or another participant's default name.
func reservedName(name string) bool {
	folded := strings.ToLower(strings.Join(strings.Fields(name), " "))
	switch folded {
	case "instructor", "the instructor", "teacher", "trainer", "admin", "loglab", "server":
		return true
	}
	n, ok := strings.CutPrefix(folded, "participant ")
	return ok && n != "" && strings.Trim(n, "0123456789") == ""
}

// openParticipantCluster makes a participant's cluster: a fresh lab running
// the starter script, in dir (empty: in memory).
func (s *Server) openParticipantCluster(id, name, owner, dir string) (*liveSession, error) {
	sess, err := newLiveSession(dir, nil, s.logger)
	if err != nil {
		return nil, err
	}
	if dir != "" {
		sess.descriptors = s.descriptors
	}
	sess.id, sess.owner, sess.ownerName = id, owner, name
	sess.lastActive = s.now()
	sess.lessonReplays = newLessonReplayLimiter()
	return sess, nil
}

// createParticipantCluster opens a cluster for the participant with the
// owner key; one who has one already gets it back (created false).
func (s *Server) createParticipantCluster(owner, name, addr string) (sess *liveSession, created bool, err error) {
	s.creating.Lock()
	defer s.creating.Unlock()
	select {
	case <-s.closed:
		return nil, false, errServerClosing
	default:
	}
	if sess := s.clusters.ownedBy(owner); sess != nil {
		return sess, false, nil
	}
	name, err = participantName(name, s.clusters.count()+1)
	if err != nil {
		return nil, false, err
	}
	if s.clusters.count() >= s.maxParticipants {
		return nil, false, errTooManyClusters
	}
	if s.clusters.openedFrom(addr) >= s.maxPerAddress {
		return nil, false, errTooManyOfYours
	}
	if s.dataDir != "" {
		if err := s.descriptors.allow("a new participant cluster", descriptorsPerCluster); err != nil {
			return nil, false, err
		}
	}
	id, dir := s.freshParticipantID()
	sess, err = s.openParticipantCluster(id, name, owner, dir)
	if err != nil {
		return nil, false, err
	}
	sess.openedFrom = addr
	if err := sess.saveParticipant(); err != nil {
		sess.shutdown()
		os.RemoveAll(dir)
		return nil, false, err
	}
	s.clusters.add(sess)
	s.logger.Info("a participant opened a cluster", "cluster", id, "name", name)
	return sess, true, nil
}

// freshParticipantID draws ids until one names no cluster and no
// directory: 32 random bits rarely collide, and a collision must never
// open another participant's files as a new cluster.
func (s *Server) freshParticipantID() (id, dir string) {
	for {
		id = newParticipantID()
		dir = s.participantDir(id)
		if s.clusters.get(id) != nil {
			continue
		}
		if dir != "" {
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				continue
			}
		}
		return id, dir
	}
}

// participantDir is where participant id's files go ("" in memory).
func (s *Server) participantDir(id string) string {
	if s.dataDir == "" {
		return ""
	}
	return filepath.Join(s.dataDir, participantsDir, id)
}

// saveParticipant writes participantFile (nothing in memory).
func (s *liveSession) saveParticipant() error {
	if s.dataDir == "" || s.owner == "" {
		return nil
	}
	rec := participantRecord{ID: s.id, Name: s.ownerName, Owner: s.owner, LastCommand: s.lastCommand, LastActive: s.lastActive, OpenedFrom: s.openedFrom}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	// Written whole then renamed: a crash mid-write leaves the old file,
	// not half of one.
	tmp := filepath.Join(s.dataDir, participantFile+".tmp")
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(s.dataDir, participantFile))
}

// restoreParticipants opens again, after a restart, every participant
// cluster the data directory holds. One that cannot be opened is logged
// and left on disk untouched, for the operator to look at: the others
// and the instructor's still start.
func (s *Server) restoreParticipants() {
	if s.dataDir == "" {
		return
	}
	root := filepath.Join(s.dataDir, participantsDir)
	entries, err := os.ReadDir(root)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			s.logger.Error("reading the participants' clusters", "dir", root, "err", err)
		}
		return
	}
	// os.ReadDir sorts by name; the overview lists the restored clusters
	// by when they were last active, oldest first, as if opened in turn.
	var restored []*liveSession
	for _, e := range entries {
		if !e.IsDir() || !participantIDPattern.MatchString(e.Name()) {
			continue
		}
		dir := filepath.Join(root, e.Name())
		if _, err := os.Stat(filepath.Join(dir, participantFile)); errors.Is(err, os.ErrNotExist) {
			// The record is written before the participant hears of the
			// cluster: without it, the server stopped while opening it
			// (kill -9), and nobody holds its token. Kept, it would be
			// reported at every start and never removed.
			if err := os.RemoveAll(dir); err != nil {
				s.logger.Error("removing a participant cluster that was never handed out", "dir", dir, "err", err)
			} else {
				s.logger.Warn("removed a participant cluster the server stopped while opening (no "+participantFile+"): nobody had been given it", "dir", dir)
			}
			continue
		}
		sess, err := s.restoreParticipant(dir, e.Name())
		if err != nil {
			s.logger.Error("a participant's cluster could not be opened again; its files are left as they are", "dir", dir, "err", err)
			continue
		}
		restored = append(restored, sess)
	}
	sortByLastActive(restored)
	for _, sess := range restored {
		s.clusters.add(sess)
	}
}

func (s *Server) restoreParticipant(dir, id string) (*liveSession, error) {
	data, err := os.ReadFile(filepath.Join(dir, participantFile))
	if err != nil {
		return nil, err
	}
	var rec participantRecord
	if err := json.Unmarshal(data, &rec); err != nil || rec.ID != id || rec.Owner == "" {
		return nil, fmt.Errorf("%s is damaged: %q", filepath.Join(dir, participantFile), data)
	}
	sess, err := s.openParticipantCluster(id, rec.Name, rec.Owner, dir)
	if err != nil {
		return nil, err
	}
	sess.lastCommand, sess.openedFrom = rec.LastCommand, rec.OpenedFrom
	// The idle clock goes on from the record, with a grace period: a
	// participant back after a restart finds their cluster, and last
	// week's clusters are removed soon after the next workshop starts
	// instead of filling the room's places for another participantIdle.
	sess.lastActive = rec.LastActive
	if grace := s.now().Add(restoreGrace - s.participantIdle); sess.lastActive.Before(grace) {
		sess.lastActive = grace
	}
	return sess, nil
}

func sortByLastActive(list []*liveSession) {
	for i := 1; i < len(list); i++ {
		for j := i; j > 0 && list[j].lastActive.Before(list[j-1].lastActive); j-- {
			list[j], list[j-1] = list[j-1], list[j]
		}
	}
}

// removeIdle removes every participant cluster idle for longer than the
// server's participantIdle at now: no command for that long and no page
// watching it. Its files go with it. It returns the ids removed.
func (s *Server) removeIdle(now time.Time) []string {
	var removed []string
	for _, sess := range s.clusters.all()[1:] {
		sess.mu.Lock()
		idleFor := now.Sub(sess.lastActive)
		idle := len(sess.subscribers) == 0 && idleFor > s.participantIdle
		sess.mu.Unlock()
		if !idle || !s.removeCluster(sess) {
			continue
		}
		s.logger.Info("removed an idle participant cluster", "cluster", sess.id, "name", sess.ownerName, "idle", idleFor.Round(time.Second))
		removed = append(removed, sess.id)
	}
	return removed
}

// removeCluster unregisters a participant cluster, closes it and deletes
// its files; false when it was not registered (removed already).
func (s *Server) removeCluster(sess *liveSession) bool {
	if !s.clusters.remove(sess) {
		return false
	}
	s.shutdownCluster(sess)
	if sess.dataDir != "" {
		if err := os.RemoveAll(sess.dataDir); err != nil {
			s.logger.Error("removing a participant cluster's files", "dir", sess.dataDir, "err", err)
		}
	}
	return true
}

// shutdownCluster closes a cluster being removed. The janitor's goroutine
// has no caller to recover for it: a panic closing one cluster's engine
// would end the server and every other cluster with it, so it is logged
// and the removal goes on (the cluster is unregistered already).
func (s *Server) shutdownCluster(sess *liveSession) {
	defer func() {
		if p := recover(); p != nil {
			s.logger.Error("closing a participant cluster panicked; it is removed all the same", "cluster", sess.id, "panic", p, "stack", string(debug.Stack()))
		}
	}()
	if err := sess.shutdown(); err != nil {
		s.logger.Error("closing a participant cluster", "cluster", sess.id, "err", err)
	}
}

// janitor removes idle participant clusters until the server closes.
func (s *Server) janitor() {
	t := time.NewTicker(idleCheckEvery)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			s.removeIdle(s.now())
		case <-s.closed:
			return
		}
	}
}

// shutdown disconnects the session's pages and closes its lab (flushing
// its logs).
func (s *liveSession) shutdown() error {
	s.closeAll()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lab.Close()
}
