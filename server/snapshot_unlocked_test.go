package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// The issue: 16 loops reconnecting with ?since=0 slowed the instructor's
// commands 6x, because each page's snapshot (the whole view and up to
// 200 transcript entries) was drawn under the cluster's mutex. It is
// drawn after the mutex is released: a command runs while it is drawn,
// and the page is sent the snapshot first, then that command's update
// on top of it.
func TestASnapshotIsDrawnWithoutTheClustersLock(t *testing.T) {
	s, ts := newTestServer(t)
	heldWhileDrawing := false
	s.live.drawingSnapshot = func() {
		if !s.live.mu.TryLock() {
			heldWhileDrawing = true // running a command now would deadlock
			return
		}
		s.live.mu.Unlock()
		s.live.run("produce orders key=k value=while-drawing partition=0")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+"/ws?since=0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	c.SetReadLimit(4 << 20)
	if heldWhileDrawing {
		t.Fatal("the snapshot was drawn with the cluster's mutex held")
	}
	snap := readUpdate(t, c)
	if !snap.Clear || snap.View == "" || strings.Contains(snap.Entry, "while-drawing") {
		t.Fatalf("the first message is not the snapshot taken before the command: clear %v, view %d bytes, entry %.200q", snap.Clear, len(snap.View), snap.Entry)
	}
	next := readUpdate(t, c)
	if next.ID <= snap.ID || !strings.Contains(next.Entry, "while-drawing") {
		t.Fatalf("the command run while the snapshot was drawn did not follow it: snapshot %d, next %d %.200q", snap.ID, next.ID, next.Entry)
	}
}
