package loadtest

import "github.com/loglab/loglab/server"

// serverUpdates is what the server counted of its updates between two
// moments (server.Server.UpdateStats, summed over its clusters): what it
// published, merged for slow pages, lost with pages it disconnected, and
// the bytes it wrote before compression, and the quiet ticks' updates that
// left the charts out (paced). The pages count the same from their side;
// the two must agree.
type serverUpdates struct {
	Published, FullViews, Fragmented uint64
	Coalesced, Dropped               uint64
	SlowPages, DeadPages             uint64
	Sent, SentBytes                  uint64
	Snapshots, Replayed              uint64
	Paced                            uint64
}

func updatesBetween(a, b server.UpdateStats) serverUpdates {
	return serverUpdates{
		Published: b.Published - a.Published, FullViews: b.FullViews - a.FullViews, Fragmented: b.Fragmented - a.Fragmented,
		Coalesced: b.Coalesced - a.Coalesced, Dropped: b.Dropped - a.Dropped,
		SlowPages: b.SlowPages - a.SlowPages, DeadPages: b.DeadPages - a.DeadPages,
		Sent: b.Sent - a.Sent, SentBytes: b.SentBytes - a.SentBytes,
		Snapshots: b.Snapshots - a.Snapshots, Replayed: b.Replayed - a.Replayed,
		Paced: b.Paced - a.Paced,
	}
}
