package server

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/kraft/quorum"
	"github.com/loglab/loglab/internal/freeport"
)

// The live cluster can use a quorum of controllers that run as their own
// processes (here: three Process values over raft's TCP transport): its
// decisions are committed there, and the server shows that quorum.
func TestLiveClusterOnControllersInOtherProcesses(t *testing.T) {
	var voters []string
	for _, port := range freeport.Ports(t, 3, 1000) { // the API listens 1000 above
		voters = append(voters, fmt.Sprintf("127.0.0.1:%d", port))
	}
	var apis []string
	for i := range voters {
		p, err := quorum.NewProcess(quorum.ProcessConfig{Config: quorum.Config{Dir: t.TempDir()}, ID: i + 1, Voters: voters})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		api, err := quorum.DefaultAPIAddr(voters[i])
		if err != nil {
			t.Fatal(err)
		}
		apis = append(apis, api)
	}
	s, err := New(Options{StaticDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Controllers: apis})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	e := s.live.run("show quorum")
	if !e.OK || !strings.Contains(e.Output, "controller 1: leader") {
		t.Fatalf("show quorum on the remote controllers:\n%s", e.Output)
	}
	if e := s.live.run("topic create remote-topic partitions=2 rf=3"); !e.OK {
		t.Fatal(e.Output)
	}
	remote, err := quorum.NewRemote(quorum.RemoteConfig{APIs: apis, LeaderWait: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()
	img := remote.ActiveImage()
	if img == nil || img.Topic("remote-topic") == nil || img.Topic("orders") == nil {
		t.Fatalf("the controllers' image lacks the live cluster's topics: %+v", img)
	}
	if e := s.live.run("controller crash 1"); e.OK || !strings.Contains(e.Output, "runs in its own process") {
		t.Fatalf("crashing a controller in another process should say how: %s", e.Output)
	}
}
