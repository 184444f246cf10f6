package loadtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/loglab/loglab/server"
)

// TestShortHostileRoom runs the hostile-room check small: a flood of 200
// websockets from four addresses (past the 64 per address), slow readers,
// ?since=0 loops and a participant filling their cluster to the replica
// cap, while the instructor produces with acks=all. It asserts only what
// holds on any machine: the server answered every probe, every refusal
// named its limit, the victim's commands ran, nothing acknowledged was
// lost (nor after a restart), and no goroutine outlived the run. Its
// latencies are logged, never asserted.
func TestShortHostileRoom(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server and attacks it")
	}
	if !newLoopbackPlan().spread {
		t.Skip("needs all of 127.0.0.0/8 on loopback")
	}
	r, err := RunHostile(context.Background(), HostileConfig{
		FloodAddresses: 4, FloodPerAddress: server.DefaultMaxPagesPerAddress + 16,
		SlowReaders: 8, ReconnectLoops: 4, Fillers: 1, PageLoadLoops: 2,
		DiskFull: true, CrashProduces: 5,
		VictimCommands: 10, Timeout: time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	r.Print(&out)
	t.Log("\n" + out.String())
	if f := r.Failures(); len(f) > 0 {
		t.Fatalf("the run failed:\n%s", strings.Join(f, "\n"))
	}
	if r.Flood.PerAddress() == 0 {
		t.Errorf("flood: %s: want some refused for the per-address limit", r.Flood)
	}
	if r.Acked != 4*10 {
		t.Errorf("the victim was acknowledged %d produces of 40 (unloaded, churn, flood, disk-full)", r.Acked)
	}
	if r.Disk.Broker == 0 || r.Disk.LeaderDuring == r.Disk.Broker {
		t.Errorf("the disk-full phase: %+v", r.Disk)
	}
	if !r.Crash.Ran || r.Crash.Acked != 5 || !r.Crash.OrphansRemoved || len(r.Crash.Lost) > 0 {
		t.Errorf("the crash phase: %+v", r.Crash)
	}
	if r.PageLoads.ok == 0 {
		t.Errorf("page loads: %s: want pages sent (how many are refused depends on the machine's speed)", &r.PageLoads)
	}
	if len(r.Fills) != 1 || r.Fills[0].Reason == "" {
		t.Errorf("the filler met no budget: %+v", r.Fills)
	}
	if !r.Restarted {
		t.Error("the server did not restart on its data directory")
	}
}
