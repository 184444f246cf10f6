package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loglab/loglab/engine/kraft/quorum"
	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/internal/freeport"
	"github.com/loglab/loglab/internal/syncbuf"
)

func TestControllerUsageErrors(t *testing.T) {
	voters := "1=127.0.0.1:9091,2=127.0.0.1:9092,3=127.0.0.1:9093"
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-voters", voters, "-data-dir", dir}, "-id is required"},
		{[]string{"-id", "4", "-voters", voters, "-data-dir", dir}, "-id 4 is not among the voters (1 to 3)"},
		{[]string{"-id", "-1", "-voters", voters, "-data-dir", dir}, "-id -1 is not among the voters"},
		{[]string{"-id", "1", "-data-dir", dir}, "-voters: no voters"},
		{[]string{"-id", "1", "-voters", "1:127.0.0.1:9091", "-data-dir", dir}, "want id=host:port"},
		{[]string{"-id", "1", "-voters", "1=127.0.0.1:9091,3=127.0.0.1:9093", "-data-dir", dir}, "controller 2 is missing"},
		{[]string{"-id", "1", "-voters", voters}, "-data-dir is required"},
		{[]string{"-id", "1", "-voters", voters, "-data-dir", dir, "-raft-log", "loud"}, `-raft-log "loud"`},
		{[]string{"-id", "1", "-voters", voters, "-data-dir", dir, "-heartbeat-timeout", "1ms"}, "at least 5ms"},
		{[]string{"-id", "x"}, "invalid value"},
		{[]string{"-id", "1", "extra"}, "unexpected argument"},
	} {
		code, _, stderr := runCLI(t, "", append([]string{"controller"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "usage: loglab") {
			t.Errorf("loglab controller %v: exit %d, want 2 with %q and the usage; stderr:\n%s", tc.args, code, tc.want, stderr)
		}
	}
}

// The three-process quorum, for real: three `loglab controller`
// processes on one machine elect a leader, commit what a client appends,
// and elect another when the leader's process is killed.
func TestControllerThreeProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds loglab and runs three processes")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build loglab with")
	}
	bin := filepath.Join(t.TempDir(), "loglab")
	if out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	ports := freeport.Ports(t, 3, 1000) // the default API port is 1000 above
	var voters, apis []string
	for i, port := range ports {
		voters = append(voters, fmt.Sprintf("%d=127.0.0.1:%d", i+1, port))
		apis = append(apis, fmt.Sprintf("127.0.0.1:%d", port+1000))
	}
	dir := t.TempDir()
	cmds := make([]*exec.Cmd, 3)
	logs := make([]*syncbuf.Buffer, 3)
	for i := range cmds {
		logs[i] = &syncbuf.Buffer{}
		cmds[i] = exec.Command(bin, "controller", "-id", fmt.Sprint(i+1), "-voters", strings.Join(voters, ","), "-data-dir", dir)
		cmds[i].Stderr = logs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for i, cmd := range cmds {
			if cmd.ProcessState == nil {
				cmd.Process.Kill()
				cmd.Wait()
			}
			t.Logf("controller %d's stderr:\n%s", i+1, logs[i])
		}
	})

	const wait = 10 * time.Second
	r, err := quorum.NewRemote(quorum.RemoteConfig{APIs: apis, LeaderWait: wait})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	awaitLeader := func(not int) int {
		t.Helper()
		deadline := time.Now().Add(wait)
		for time.Now().Before(deadline) {
			if l := r.Leader(); l != 0 && l != not {
				return l
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("no active controller other than %d within %s: %+v", not, wait, r.Status())
		return 0
	}
	appendTopic := func(name string, want int64) {
		t.Helper()
		got, err := r.Append([]protocol.MetadataRecord{{Type: "Topic", Topic: name, Partitions: 3}})
		if err != nil || len(got) != 1 || got[0].Offset != want {
			t.Fatalf("Append(%s) = %+v, %v; want offset %d", name, got, err, want)
		}
	}

	leader := awaitLeader(0)
	t.Logf("controller %d is active", leader)
	appendTopic("orders", 0)

	// Kill the active controller's process: a crash, no handover.
	if err := cmds[leader-1].Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmds[leader-1].Wait()
	next := awaitLeader(leader)
	t.Logf("controller %d took over", next)
	appendTopic("payments", 1)
	if recs := r.Read(0); len(recs) != 2 || recs[0].Topic != "orders" || recs[1].Topic != "payments" {
		t.Fatalf("the log after the failover: %+v", recs)
	}
	if !strings.Contains(logs[next-1].String(), fmt.Sprintf("controller %d is the active controller", next)) {
		t.Errorf("controller %d did not log that it became active", next)
	}

	// Ctrl-C stops the others cleanly.
	for i, cmd := range cmds {
		if cmd.ProcessState != nil {
			continue
		}
		if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Errorf("controller %d exited with %v", i+1, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("controller-%d", next), "quorum-state")); err != nil {
		t.Error(err)
	}
}
