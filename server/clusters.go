package server

import (
	"sync"
	"time"

	"github.com/loglab/loglab/lessons"
)

// instructorClusterID is the instructor's cluster in URLs: the one /live
// shows to everyone.
const instructorClusterID = "live"

// clusterRegistry is the server's clusters: the instructor's, and one per
// participant who opened one, in the order they were opened (the order
// the overview and GET /api/v1/clusters list them in).
type clusterRegistry struct {
	mu           sync.Mutex
	live         *liveSession
	participants []*liveSession
}

// get returns the cluster with this id, nil when there is none.
func (r *clusterRegistry) get(id string) *liveSession {
	if id == instructorClusterID {
		return r.live
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.participants {
		if s.id == id {
			return s
		}
	}
	return nil
}

// ownedBy returns the participant cluster whose owner is key, if any.
func (r *clusterRegistry) ownedBy(key string) *liveSession {
	if key == "" {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.participants {
		if s.owner == key {
			return s
		}
	}
	return nil
}

// all returns every cluster, the instructor's first.
func (r *clusterRegistry) all() []*liveSession {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*liveSession{r.live}, r.participants...)
}

// add registers a participant cluster.
func (r *clusterRegistry) add(s *liveSession) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.participants = append(r.participants, s)
}

// remove unregisters a participant cluster; it reports whether it was there.
func (r *clusterRegistry) remove(s *liveSession) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, x := range r.participants {
		if x == s {
			r.participants = append(r.participants[:i], r.participants[i+1:]...)
			return true
		}
	}
	return false
}

// openedFrom counts the participant clusters opened from a client
// address since the server started.
func (r *clusterRegistry) openedFrom(addr string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, s := range r.participants {
		if s.openedFrom == addr {
			n++
		}
	}
	return n
}

func (r *clusterRegistry) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.participants)
}

// clusterSummary is one cluster as GET /api/v1/clusters and the
// instructor's overview list it.
type clusterSummary struct {
	ID          string    `json:"id"`
	Owner       string    `json:"owner"` // "instructor", or the participant's name
	Topics      []string  `json:"topics"`
	LastCommand string    `json:"lastCommand"`
	LastActive  time.Time `json:"lastActive"`
	Viewers     int       `json:"viewers"`
	// Lesson is the lesson played on the cluster and where it is, nil in
	// free play; Health what its cluster's state says is wrong. Both are
	// the instructor's, as the last command is.
	Lesson *lessonProgress `json:"lesson,omitempty"`
	Health *clusterHealth  `json:"health,omitempty"`
}

// lessonProgress is where a cluster's lesson is: step Step (from 1) of
// Steps, named StepName (the step's slug in the lesson file).
type lessonProgress struct {
	ID       string       `json:"id"`
	Number   int          `json:"number"` // the lesson's number in the catalogue
	Title    lessons.HTML `json:"title"`
	Step     int          `json:"step"`
	Steps    int          `json:"steps"`
	StepName string       `json:"stepName"`
	Goal     bool         `json:"goal"`
}

// clusterHealth is what an instructor scans a room for: the invariant
// violations the cluster's checker reported (an acknowledged record lost,
// two leaders in one epoch ...) and its brokers that are down.
type clusterHealth struct {
	Violations  int `json:"violations"`
	Brokers     int `json:"brokers"`
	BrokersDown int `json:"brokersDown"`
}

// summary describes the cluster as it is now, taken under its lock alone
// (the overview takes one cluster's at a time, and draws after).
func (s *liveSession) summary() clusterSummary {
	s.mu.Lock()
	defer s.mu.Unlock()
	owner := s.ownerName
	if s.owner == "" {
		owner = "instructor"
	}
	v := s.lab.View()
	topics := []string{}
	for _, t := range v.Topics {
		topics = append(topics, t.Name)
	}
	sum := clusterSummary{ID: s.id, Owner: owner, Topics: topics, LastCommand: s.lastCommand, LastActive: s.lastActive, Viewers: len(s.subscribers)}
	if v.Exists {
		h := &clusterHealth{Violations: len(v.Checks), Brokers: len(v.BrokerNodes)}
		for _, b := range v.BrokerNodes {
			if !b.Alive {
				h.BrokersDown++
			}
		}
		sum.Health = h
	}
	if s.lesson != nil {
		st, l := s.lesson.Status(), s.lesson.Lesson()
		sum.Lesson = &lessonProgress{ID: l.ID, Number: l.Order, Title: lessons.Title(l), Step: st.Step + 1, Steps: st.Steps, StepName: st.Name, Goal: st.Goal}
	}
	return sum
}
