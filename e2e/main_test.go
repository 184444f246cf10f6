// Package e2e drives loglab's pages in a real headless Chromium through
// playwright-go: one browser for the package, fresh contexts (cookies,
// storage and cache of their own) for each test's pages, and tests that
// run beside each other (t.Parallel): the browser lab's pages on the
// package's server, each running its own engine, and every test that
// drives a server's clusters on a server of its own (ownServer).
//
// The browser is Debian's Chromium and the driver is the npm package
// playwright-core that `make setup` unpacks; nothing is downloaded from a
// CDN (never call playwright.Install). Run with `make e2e`.
package e2e

import (
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/playwright-community/playwright-go"

	"github.com/loglab/loglab/server"
)

const chromiumPath = "/usr/bin/chromium"

var (
	browser playwright.Browser
	baseURL string
)

func TestMain(m *testing.M) {
	os.Exit(runSuite(m))
}

func runSuite(m *testing.M) int {
	driverDir := os.Getenv("PLAYWRIGHT_DRIVER_PATH")
	if driverDir == "" {
		driverDir, _ = filepath.Abs("../.cache/playwright-driver-1.52.0")
	}
	if missing := prerequisitesMissing(driverDir); missing != "" {
		// `make e2e` sets LOGLAB_E2E_REQUIRED so CI can never pass by skipping.
		if os.Getenv("LOGLAB_E2E_REQUIRED") != "" {
			fmt.Fprintln(os.Stderr, "e2e:", missing)
			return 1
		}
		fmt.Fprintln(os.Stderr, "e2e: skipped:", missing, "(run `make e2e`)")
		return 0
	}

	// The package's server: the browser lab's pages and files, for every
	// test; on a data directory, as a workshop's server runs. Its live
	// cluster is left alone (a test that drives one starts its own).
	dataDir, err := os.MkdirTemp("", "loglab-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dataDir)
	srv, err := server.New(server.Options{StaticDir: "../static", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), InstructorToken: instructorToken, DataDir: dataDir})
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e: server:", err)
		return 1
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	defer srv.Close()
	baseURL = ts.URL

	pw, err := playwright.Run(&playwright.RunOptions{DriverDirectory: driverDir, SkipInstallBrowsers: true, Verbose: false})
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e: starting the playwright driver:", err)
		return 1
	}
	defer pw.Stop()
	// Without these, Chromium reaches for Google's services, which this
	// network refuses, and for a GPU and /dev/shm a container may lack.
	args := []string{"--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-sync",
		"--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--no-first-run"}
	if os.Getenv("LOGLAB_BENCH") == "" {
		// The engine's WASM compiled by V8's baseline compiler (Liftoff)
		// alone, which compiles every function first anyway: each test's
		// pages live seconds, and recompiling their hot functions with the
		// optimizing one (TurboFan) cost the suite more CPU than it saved,
		// on a machine where the suite is CPU-bound. The same code and
		// semantics, run slower; make bench (TestBudgets) measures the
		// browser as shipped.
		args = append(args, "--js-flags=--liftoff-only")
	}
	browser, err = pw.Chromium.Launch(playwright.BrowserTypeLaunchOptions{
		ExecutablePath: playwright.String(chromiumPath),
		Headless:       playwright.Bool(true),
		Args:           args,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e: launching chromium:", err)
		return 1
	}
	defer browser.Close()
	return m.Run()
}

func prerequisitesMissing(driverDir string) string {
	if _, err := os.Stat(filepath.Join(driverDir, "package", "cli.js")); err != nil {
		return "no playwright driver in " + driverDir + " (make setup)"
	}
	if _, err := os.Stat(chromiumPath); err != nil {
		return "no chromium at " + chromiumPath + " (make setup)"
	}
	if _, err := os.Stat("../static/loglab.wasm"); err != nil {
		return "no static/loglab.wasm (make wasm)"
	}
	return ""
}

// ownServer starts a loglab server for one test, on its own port and data
// directory, as a workshop's server runs: its instructor's cluster (which
// writes real segment files, which the record fetch sends) and its
// participants' clusters are the test's alone, and so are its limits per
// client address (page loads, participant clusters), so tests that drive
// a server run beside each other. It returns the server's URL; the server
// stops when the test ends, after the pages opened later have closed.
func ownServer(t *testing.T) string {
	t.Helper()
	dataDir := t.TempDir()
	srv, err := server.New(server.Options{StaticDir: "../static", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), InstructorToken: instructorToken, DataDir: dataDir})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	// Registered before the pages: cleanups run last first, so the pages
	// close before the server does, and the data directory goes last.
	t.Cleanup(func() { srv.Close(); ts.Close() })
	return ts.URL
}
