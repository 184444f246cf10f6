package loadtest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/loglab/loglab/server"
)

// The crash phase: a workshop server in a process of its own, killed with
// SIGKILL while the instructor produces with acks=all and a participant
// opens a cluster, then started again on its data directory. Nothing it
// acknowledged may be missing after the restart, the restart must not be
// refused (the dead process's lock, a half-created participant folder),
// and the half-created folder must be gone.

// crashChildEnv makes this process the crash phase's server: its value is
// the data directory (see RunCrashChildIfAsked).
const (
	crashChildEnv      = "LOGLAB_CHAOS_CRASH_DATA"
	crashTokenEnv      = "LOGLAB_CHAOS_CRASH_TOKEN"
	crashListeningLine = "chaos crash child listening on "
)

// RunCrashChildIfAsked serves a workshop server on a loopback port when
// this process was started as the crash phase's server, and never
// returns then: the phase kills it. Otherwise it returns at once. A
// program that runs the hostile-room check (loglab chaos, the package's
// tests) calls it first thing.
func RunCrashChildIfAsked() {
	data := os.Getenv(crashChildEnv)
	if data == "" {
		return
	}
	release, err := server.LockDataDir(data)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	defer release()
	p, err := startServer(server.Options{StaticDir: filepath.Dir(data), DataDir: data, InstructorToken: os.Getenv(crashTokenEnv)})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	fmt.Println(crashListeningLine + p.addr())
	select {} // until SIGKILL
}

// crashChild is the crash phase's server process.
type crashChild struct {
	cmd  *exec.Cmd
	addr string
}

func startCrashChild(data, token string, timeout time.Duration) (*crashChild, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), crashChildEnv+"="+data, crashTokenEnv+"="+token)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), crashListeningLine); ok {
				addr <- a
				break
			}
		}
		close(addr)
		io.Copy(io.Discard, out)
	}()
	select {
	case a, ok := <-addr:
		if ok {
			return &crashChild{cmd: cmd, addr: a}, nil
		}
	case <-time.After(timeout):
	}
	cmd.Process.Kill()
	cmd.Wait()
	return nil, fmt.Errorf("the server process did not start: %s", strings.TrimSpace(stderr.String()))
}

// kill ends the process with SIGKILL: nothing of it runs after.
func (c *crashChild) kill() error {
	if err := c.cmd.Process.Kill(); err != nil {
		return err
	}
	var exit *exec.ExitError
	if err := c.cmd.Wait(); err != nil && !errors.As(err, &exit) {
		return err
	}
	return nil
}

// CrashFigures is what the crash phase saw.
type CrashFigures struct {
	Ran              bool
	Acked            int      // acks=all produces acknowledged before the kill
	InFlight         string   // the produce in flight at the kill: acknowledged, failed or unanswered
	Lost             []string // acknowledged values missing after the restart
	OrphansRemoved   bool     // the half-created participant's folder is gone after the restart
	RestartRefusal   string   // why the restart failed, "" when it did not
	KilledWithCreate bool     // a participant cluster was being created at the kill
}

// crash runs the crash phase in dir with n produces, one every every,
// before the kill.
func (r *HostileReport) crash(ctx context.Context, dir string, n int, every, timeout time.Duration) {
	r.Crash.Ran = true
	data := filepath.Join(dir, "crash-data")
	const token = "chaos-crash-instructor"
	child, err := startCrashChild(data, token, timeout)
	if err != nil {
		r.fail("crash phase: %v", err)
		return
	}
	c := &apiClient{base: "http://" + child.addr, token: token, http: newHTTPClient(nil, nil)}
	v := &victim{c: c, every: every}
	if err := v.setup(ctx); err != nil {
		child.kill()
		r.fail("crash phase: the victim's producer: %v", err)
		return
	}
	v.run(ctx, n)
	r.Crash.Acked = len(v.acked)
	for _, f := range v.failed {
		r.fail("crash phase: before the kill: %s", f)
	}

	// A produce and a participant's cluster in flight, then SIGKILL.
	inFlight := make(chan string, 1)
	go func() {
		res, err := c.command(ctx, instructorCluster, "produce orders key=victim value=in-flight partition=0 producer="+victimProducer)
		switch {
		case err != nil:
			inFlight <- "unanswered"
		case res.OK && strings.Contains(res.Output, "(acks=all"):
			inFlight <- "acknowledged"
		default:
			inFlight <- "failed"
		}
	}()
	participant := &apiClient{base: c.base, http: newHTTPClient(tcpAddr(loopbackIP(7, 0)), nil)}
	go participant.createCluster(ctx, "crash")
	time.Sleep(20 * time.Millisecond) // both requests on their way: where they are when killed is the point, not a condition
	if err := child.kill(); err != nil {
		r.fail("crash phase: killing the server: %v", err)
		return
	}
	r.Crash.KilledWithCreate = true
	r.Crash.InFlight = <-inFlight
	if r.Crash.InFlight == "acknowledged" {
		v.acked = append(v.acked, "in-flight")
	}
	c.http.CloseIdleConnections()
	participant.http.CloseIdleConnections()

	again, err := startCrashChild(data, token, timeout)
	if err != nil {
		r.Crash.RestartRefusal = err.Error()
		r.fail("crash phase: the server did not start again on its data directory after SIGKILL: %v", err)
		return
	}
	defer again.kill()
	c2 := &apiClient{base: "http://" + again.addr, token: token, http: newHTTPClient(nil, nil)}
	defer c2.http.CloseIdleConnections()
	back := &victim{c: c2, acked: v.acked}
	lost, err := back.lost(ctx)
	if err != nil {
		r.fail("crash phase: reading orders/0 back after the restart: %v", err)
		return
	}
	r.Crash.Lost = lost
	if len(lost) > 0 {
		r.fail("crash phase: %d acknowledged records lost after SIGKILL and a restart: %s", len(lost), strings.Join(lost[:min(5, len(lost))], ", "))
	}
	r.Crash.OrphansRemoved = !hasHalfCreatedParticipant(data)
	if !r.Crash.OrphansRemoved {
		r.fail("crash phase: a participant folder without its record is left after the restart")
	}
}

// hasHalfCreatedParticipant reports a participant cluster's folder
// without the record the server writes before handing it out (the data
// directory's layout: participants/p-…/loglab-participant.json).
func hasHalfCreatedParticipant(data string) bool {
	dirs, _ := filepath.Glob(filepath.Join(data, "participants", "p-*"))
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "loglab-participant.json")); errors.Is(err, os.ErrNotExist) {
			return true
		}
	}
	return false
}
