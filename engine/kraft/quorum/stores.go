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
	if err := snapshotsCoverLog(dir, seg, snaps); err != nil {
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

// snapshotsCoverLog refuses a controller whose raft log starts after index
// 1 (snapshots compacted the entries before it) but whose snapshots do not
// reach that far: raft would panic replaying entries that exist nowhere,
// and the metadata they held is gone from this controller. Kafka refuses to
// start on a metadata log whose start offset no snapshot covers, too.
func snapshotsCoverLog(dir string, logs raft.LogStore, snaps raft.SnapshotStore) error {
	first, err := logs.FirstIndex()
	if err != nil || first <= 1 {
		return err
	}
	metas, err := snaps.List()
	if err != nil {
		return fmt.Errorf("%s: %w: restore the snapshots from a backup, or start on an empty data directory", filepath.Join(dir, "snapshots"), err)
	}
	for _, m := range metas {
		if m.Index >= first-1 {
			return nil
		}
	}
	return fmt.Errorf("%s holds no snapshot up to raft index %d, where this controller's log starts (the entries before it were compacted into snapshots): "+
		"restore the snapshots from a backup, or start on an empty data directory", filepath.Join(dir, "snapshots"), first-1)
}
