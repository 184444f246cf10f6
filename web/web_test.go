package web

import (
	"bytes"
	"context"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/view"
)

func TestClusterViewShowsRecords(t *testing.T) {
	c := view.Cluster{Exists: true, Brokers: 3, Controllers: 1, Seed: 42, Elapsed: "0s", Topics: []view.Topic{{
		Name: "orders", ReplicationFactor: 3,
		Partitions: []view.Partition{{
			Topic: "orders", Index: 0, LogEndOffset: 7, Hidden: 5,
			Records: []view.Record{
				{Offset: 5, Key: "order-<1>", Value: "created"},
				{Offset: 6, KeyIsNull: true, Value: "paid"},
			},
		}},
	}}}
	html, err := RenderString(context.Background(), ClusterView(c))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`id="cluster-view"`, `data-partition="orders/0"`, `data-offset="5"`, "order-&lt;1&gt;", "created",
		`class="key null"`, "… 5 older", `data-focus="partition orders/0 log-end" data-focus-state="7">7</b>`, "3 brokers",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("rendered view lacks %q:\n%s", want, html)
		}
	}
	if strings.Contains(html, "order-<1>") {
		t.Error("a key was rendered unescaped")
	}
}

func TestNoClusterInvitesToStartOne(t *testing.T) {
	html, err := RenderString(context.Background(), ClusterView(view.Cluster{}))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html, "cluster brokers=3 seed=42") {
		t.Errorf("empty view does not say how to start a cluster:\n%s", html)
	}
}

// TestGeneratedCodeIsFresh regenerates the templ output into a scratch copy
// and compares it with the committed *_templ.go files.
func TestGeneratedCodeIsFresh(t *testing.T) {
	if runtime.GOOS == "js" {
		t.Skip("runs the templ generator, which needs a native go command; checked in the native run")
	}
	templs, _ := filepath.Glob("*.templ")
	if len(templs) == 0 {
		t.Fatal("no .templ files found")
	}
	// templ records paths relative to where it runs; `make generate` runs it
	// at the repository root, so the scratch copy keeps the web/ folder.
	root := t.TempDir()
	scratch := filepath.Join(root, "web")
	if err := os.Mkdir(scratch, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range templs {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(scratch, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "tool", "templ", "generate", "-path", root)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("templ generate: %v\n%s", err, out)
	}
	for _, f := range templs {
		gen := strings.TrimSuffix(f, ".templ") + "_templ.go"
		want, err := os.ReadFile(filepath.Join(scratch, gen))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(gen)
		if err != nil {
			t.Fatalf("%s is not committed: run `make generate`", gen)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run `make generate` and commit the result", gen)
		}
	}
}

// web may import only engine/view from this module (docs/architecture.md), so views
// cannot reach into live engine state.
func TestWebImportsOnlyEngineView(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, "github.com/loglab/loglab/") && path != "github.com/loglab/loglab/engine/view" {
				t.Errorf("%s imports %s; web may import only engine/view", file, path)
			}
		}
	}
}

// en is chrome as T draws its English half, for tests that look for it.
func en(s string) string { return `<span lang="en" data-l="en">` + s + `</span>` }
