package server

import (
	"sync"
	"time"
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
}

// summary describes the cluster as it is now.
func (s *liveSession) summary() clusterSummary {
	s.mu.Lock()
	defer s.mu.Unlock()
	owner := s.ownerName
	if s.owner == "" {
		owner = "instructor"
	}
	topics := []string{}
	for _, t := range s.lab.View().Topics {
		topics = append(topics, t.Name)
	}
	return clusterSummary{ID: s.id, Owner: owner, Topics: topics, LastCommand: s.lastCommand, LastActive: s.lastActive, Viewers: len(s.subscribers)}
}
