package quorum

import (
	"fmt"
	"path/filepath"

	"github.com/hashicorp/raft"
)

// openStores opens a controller's stores if they are not open: in memory
// once for the quorum's life, natively again after every crash, so that a
// restart recovers them from the files.
func (q *Quorum) openStores(n *node) error {
	if n.logs != nil {
		return nil
	}
	if q.fs == nil {
		s := raft.NewInmemStore()
		n.logs, n.stable, n.snaps = s, s, raft.NewInmemSnapshotStore()
		return nil
	}
	dir := fmt.Sprintf("controller-%d", n.id)
	seg, err := openSegmentStore(q.fs, dir, q.cfg.SegmentBytes)
	if err != nil {
		return err
	}
	state, err := openStateStore(q.fs, dir)
	if err != nil {
		seg.Close()
		return err
	}
	snaps, err := raft.NewFileSnapshotStoreWithLogger(filepath.Join(q.cfg.Dir, dir), 2, q.cfg.Logger.Named("snapshots"))
	if err != nil {
		seg.Close()
		return err
	}
	cache, err := raft.NewLogCache(256, seg)
	if err != nil {
		seg.Close()
		return err
	}
	n.seg, n.logs, n.stable, n.snaps = seg, cache, state, snaps
	return nil
}

// storedPosition is where a controller's stored log ends, its snapshots
// included, before it runs.
func storedPosition(n *node) logPosition {
	var pos logPosition
	if last, err := n.logs.LastIndex(); err == nil && last > 0 {
		var l raft.Log
		if n.logs.GetLog(last, &l) == nil {
			pos = logPosition{term: l.Term, index: last}
		}
	}
	if metas, err := n.snaps.List(); err == nil && len(metas) > 0 && metas[0].Index > pos.index {
		pos = logPosition{term: metas[0].Term, index: metas[0].Index}
	}
	return pos
}

// closeStores closes native stores after a crash or at Close.
func (q *Quorum) closeStores(n *node) error {
	if n.seg == nil {
		return nil
	}
	err := n.seg.Close()
	n.seg, n.logs, n.stable, n.snaps = nil, nil, nil, nil
	return err
}
