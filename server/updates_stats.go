package server

import "sync/atomic"

// updateStats counts, per session, what its updates became: the load
// test reports them.
type updateStats struct {
	published  atomic.Uint64 // updates of the stream
	coalesced  atomic.Uint64 // updates a page was sent merged into a later one
	dropped    atomic.Uint64 // updates lost with the pages disconnected for staying behind
	slowPages  atomic.Uint64 // pages disconnected for staying behind
	sent       atomic.Uint64 // update messages written to pages
	sentBytes  atomic.Uint64 // their bytes, before compression
	deadPages  atomic.Uint64 // pages closed for not answering a ping
	snapshots  atomic.Uint64 // whole-state updates sent to (re)connecting pages
	replayed   atomic.Uint64 // reconnections served from the ring
	fullViews  atomic.Uint64 // published updates that carried the whole view
	fragmented atomic.Uint64 // published updates that carried fragments only
	paced      atomic.Uint64 // quiet ticks' updates that left the charts out (pacing.go)
}

// UpdateStats is a session's updateStats at one moment.
type UpdateStats struct {
	Published  uint64 `json:"published"`
	FullViews  uint64 `json:"fullViews"`
	Fragmented uint64 `json:"fragmented"`
	Coalesced  uint64 `json:"coalesced"`
	Dropped    uint64 `json:"dropped"`
	SlowPages  uint64 `json:"slowPages"`
	DeadPages  uint64 `json:"deadPages"`
	Sent       uint64 `json:"sent"`
	SentBytes  uint64 `json:"sentBytes"`
	Snapshots  uint64 `json:"snapshots"`
	Replayed   uint64 `json:"replayed"`
	Paced      uint64 `json:"paced"`
}

// stats is the session's update counters now.
func (s *liveSession) stats() UpdateStats {
	st := &s.updateStats
	return UpdateStats{
		Published: st.published.Load(), FullViews: st.fullViews.Load(), Fragmented: st.fragmented.Load(),
		Coalesced: st.coalesced.Load(), Dropped: st.dropped.Load(), SlowPages: st.slowPages.Load(),
		DeadPages: st.deadPages.Load(), Sent: st.sent.Load(), SentBytes: st.sentBytes.Load(),
		Snapshots: st.snapshots.Load(), Replayed: st.replayed.Load(), Paced: st.paced.Load(),
	}
}

// add is a plus b, for a sum over clusters.
func (a UpdateStats) add(b UpdateStats) UpdateStats {
	return UpdateStats{
		Published: a.Published + b.Published, FullViews: a.FullViews + b.FullViews, Fragmented: a.Fragmented + b.Fragmented,
		Coalesced: a.Coalesced + b.Coalesced, Dropped: a.Dropped + b.Dropped, SlowPages: a.SlowPages + b.SlowPages,
		DeadPages: a.DeadPages + b.DeadPages, Sent: a.Sent + b.Sent, SentBytes: a.SentBytes + b.SentBytes,
		Snapshots: a.Snapshots + b.Snapshots, Replayed: a.Replayed + b.Replayed, Paced: a.Paced + b.Paced,
	}
}

// UpdateStats sums the update counters of the server's clusters now (a
// cluster removed as idle takes its counts with it): the load test reports
// coalesced and dropped updates and bytes sent per update from them.
func (s *Server) UpdateStats() UpdateStats {
	var sum UpdateStats
	for _, sess := range s.clusters.all() {
		sum = sum.add(sess.stats())
	}
	return sum
}
