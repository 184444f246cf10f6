package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets a test run `loglab` as a child process (the test binary
// with LOGLAB_TEST_RUN set to the arguments), so that it can kill -9 it.
func TestMain(m *testing.M) {
	if args := os.Getenv("LOGLAB_TEST_RUN"); args != "" {
		os.Exit(run(strings.Fields(args), os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// servingChild is `loglab serve` in a child process.
type servingChild struct {
	cmd         *exec.Cmd
	base, token string
	stderr      *bytes.Buffer
	exited      chan error
}

var instructorURL = regexp.MustCompile(`instructor \(keep this one to yourself\): (http://[^/\s]+)/live\?token=(\S+)`)

func startServe(t *testing.T, static, dataDir string) *servingChild {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "LOGLAB_TEST_RUN=serve -addr 127.0.0.1:0 -static "+static+" -data-dir "+dataDir)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &servingChild{cmd: cmd, stderr: &bytes.Buffer{}, exited: make(chan error, 1)}
	t.Cleanup(func() { cmd.Process.Kill(); <-c.exited })
	found := make(chan []string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			c.stderr.WriteString(sc.Text() + "\n")
			if m := instructorURL.FindStringSubmatch(sc.Text()); m != nil {
				found <- m
			}
		}
		c.exited <- cmd.Wait()
	}()
	select {
	case m := <-found:
		c.base, c.token = m[1], m[2]
	case err := <-c.exited:
		c.exited <- err
		t.Fatalf("loglab serve exited before serving: %v", err)
	}
	return c
}

// post sends a JSON request as token and returns the decoded answer.
func (c *servingChild) post(t *testing.T, path, token string, body any) map[string]any {
	t.Helper()
	data, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, c.base+path, bytes.NewReader(data))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]any{}
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &out); err != nil || resp.StatusCode >= 300 {
		t.Fatalf("POST %s: %d %s", path, resp.StatusCode, raw)
	}
	return out
}

func (c *servingChild) run(t *testing.T, cluster, token, line string) string {
	t.Helper()
	out := c.post(t, "/api/v1/clusters/"+cluster+"/commands", token, map[string]string{"line": line})
	if ok, _ := out["ok"].(bool); !ok {
		t.Fatalf("%s on %s: %v", line, cluster, out["output"])
	}
	return fmt.Sprint(out["output"])
}

// A workshop's server killed with -9 (a laptop's lid, an OOM kill) comes
// back from its data directory with the instructor's cluster, every
// participant's, their records, and the same instructor token; SIGTERM
// shuts it down cleanly with exit status 0.
func TestServeComesBackAfterKillDashNine(t *testing.T) {
	static, dataDir := t.TempDir(), filepath.Join(t.TempDir(), "data")
	if err := os.WriteFile(filepath.Join(static, "app.js"), []byte("// glue"), 0o644); err != nil {
		t.Fatal(err)
	}
	first := startServe(t, static, dataDir)
	participant := first.post(t, "/api/v1/clusters", "", map[string]string{"name": "Ana"})
	id, ptoken := participant["id"].(string), participant["token"].(string)
	first.run(t, "live", first.token, "produce orders key=k value=instructors-record partition=0")
	first.run(t, id, ptoken, "topic create ana-topic")
	first.run(t, id, ptoken, "produce ana-topic value=anas-record")

	if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-first.exited
	first.exited <- nil // for the cleanup

	second := startServe(t, static, dataDir)
	if second.token != first.token {
		t.Errorf("the instructor's token changed across the restart: %s, then %s", first.token, second.token)
	}
	second.run(t, "live", second.token, "tick 5s")
	if out := second.run(t, "live", second.token, "show log orders/0"); !strings.Contains(out, "instructors-record") {
		t.Errorf("the instructor's record after kill -9:\n%s", out)
	}
	second.run(t, id, ptoken, "tick 5s")
	if out := second.run(t, id, ptoken, "show log ana-topic/0"); !strings.Contains(out, "anas-record") {
		t.Errorf("Ana's record after kill -9:\n%s", out)
	}

	if err := second.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-second.exited:
		second.exited <- err
		if err != nil || !strings.Contains(second.stderr.String(), "every cluster closed cleanly") {
			t.Fatalf("after SIGTERM: %v\n%s", err, second.stderr)
		}
	case <-time.After(2 * time.Minute):
		t.Fatalf("loglab serve did not stop on SIGTERM:\n%s", second.stderr)
	}
}
