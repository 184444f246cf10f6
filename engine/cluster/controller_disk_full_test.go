package cluster

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/storage"
)

// Reproduction 3 of issue 26 on the controllers' side: the active
// controller's disk fills. It used to log "cannot write quorum-state" and
// go on (and, before the KRaft change, panic the whole process); Kafka's
// fault handler stops that controller instead. Here it halts, naming the
// file and the error, the other two elect a new active controller and the
// cluster goes on; freed and restarted, it rejoins.
func TestAControllerWhoseDiskIsFullStopsAndTheOthersGoOn(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Seed, cfg.MetadataDir = 5, "meta"
	c, err := New(cfg, storage.NewMem())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	victim := c.ActiveController()
	if err := c.FillControllerDisk(victim, 0); err != nil {
		t.Fatal(err)
	}
	c.DrainEvents()
	// A topic is a metadata write: the active controller cannot make it.
	// The creation may be refused while the quorum elects another; once
	// one is active it goes through.
	if err := c.CreateTopic("orders", 1, 3, nil); err == nil {
		t.Fatalf("controller %d took a topic it could not write", victim)
	}
	if ok, err := c.RunUntil(func() bool { a := c.ActiveController(); return a != 0 && a != victim }, time.Minute); !ok || err != nil {
		t.Fatalf("no other controller became active (err %v):\n%s", err, strings.Join(c.events, "\n"))
	}
	if c.Controller().Image().Topic("orders") == nil {
		if err := c.CreateTopic("orders", 1, 3, nil); err != nil {
			t.Fatal(err)
		}
	}
	events := strings.Join(c.DrainEvents(), "\n")
	for _, want := range []string{
		fmt.Sprintf("ctl%d: Unexpected error in raft IO thread: metadata log: write meta/controller-%d/__cluster_metadata-0/00000000000000000000.log: no space left on device", victim, victim),
		fmt.Sprintf("controller %d stopped: its metadata store failed a write", victim),
	} {
		if !strings.Contains(events, want) {
			t.Errorf("the events lack %q:\n%s", want, events)
		}
	}
	if down := c.ControllersDown(); len(down) != 1 || down[0] != victim {
		t.Errorf("controllers down %v, want [%d]", down, victim)
	}
	if err := c.FreeControllerDisk(victim); err != nil {
		t.Fatal(err)
	}
	if err := c.RestartController(victim); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Stabilize(); err != nil {
		t.Fatal(err)
	}
	if len(c.ControllersDown()) != 0 {
		t.Errorf("controllers down %v after the restart", c.ControllersDown())
	}
	if testing.Verbose() {
		t.Logf("events:\n%s\n%s", events, strings.Join(c.DrainEvents(), "\n"))
	}
	noViolations(t, c)
}
