// Package engine_test guards the engine's determinism by reading its source:
// the deterministic core may not reach the outside world, so the same seed
// and commands always give the same transcript, natively and in WASM.
package engine_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/loglab/loglab/"

// forbiddenImports reach real I/O, real randomness or the browser.
var forbiddenImports = map[string]string{
	"os":          "real files belong to the storage adapter",
	"net":         "the engine's network is sim.Network",
	"net/http":    "HTTP belongs to the server driver",
	"syscall/js":  "JavaScript belongs to the wasm driver",
	"math/rand":   "use the cluster's seeded math/rand/v2 source",
	"os/exec":     "the engine runs no processes",
	"crypto/rand": "use the cluster's seeded math/rand/v2 source",
	// The simulation's quorum is KRaft in engine/kraft/raft, in virtual
	// time; hashicorp/raft runs on the wall clock, for separate processes.
	"github.com/hashicorp/raft":    "hashicorp/raft runs on real time: the simulation's quorum is engine/kraft/raft",
	module + "engine/kraft/quorum": "the hashicorp/raft adapter is for controllers in separate processes, never the simulation",
}

// forbiddenTimeCalls read or wait on the wall clock; use sim.Clock.
var forbiddenTimeCalls = map[string]bool{
	"Now": true, "Since": true, "Until": true, "After": true, "AfterFunc": true,
	"Sleep": true, "NewTimer": true, "NewTicker": true, "Tick": true,
}

// adapters are the only engine packages allowed to touch the outside world,
// each behind an interface the core defines (docs/architecture.md): the file storage
// backend and the hashicorp/raft quorum. They join this list when they exist.
var adapters = map[string]bool{
	"storage/osfs": true,
	"kraft/quorum": true, // hashicorp/raft, for controllers that are separate OS processes
}

func TestForbiddenImports(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		if adapters[filepath.ToSlash(filepath.Dir(path))] {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		checked++
		for _, v := range violations(fset, f) {
			t.Error(v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 10 {
		t.Fatalf("only %d engine files checked; is the walk looking in the right place?", checked)
	}
}

// The check must be able to fail: feed it a file that breaks every rule.
func TestForbiddenImportsCatchesViolations(t *testing.T) {
	src := `package bad
import (
	"os"
	mr "math/rand"
	"time"
	"github.com/hashicorp/raft"
	"github.com/loglab/loglab/server"
)
func f() { _ = time.Now(); time.Sleep(1); go f(); _ = os.Args; _ = mr.Int(); _ = server.X; _ = raft.Log{} }`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "bad.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(violations(fset, f), "\n")
	for _, want := range []string{`imports "os"`, `imports "math/rand"`, "time.Now", "time.Sleep", "goroutine", "outside engine", "hashicorp/raft runs on real time"} {
		if !strings.Contains(got, want) {
			t.Errorf("the checker missed %s; it reported:\n%s", want, got)
		}
	}
}

func violations(fset *token.FileSet, f *ast.File) []string {
	var out []string
	timeName := ""
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		pos := fset.Position(imp.Pos())
		if why, bad := forbiddenImports[path]; bad {
			out = append(out, pos.String()+": imports \""+path+"\": "+why)
		}
		if strings.HasPrefix(path, module) && !strings.HasPrefix(path, module+"engine") {
			out = append(out, pos.String()+": imports "+path+", outside engine")
		}
		if path == "time" {
			timeName = "time"
			if imp.Name != nil {
				timeName = imp.Name.Name
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt:
			out = append(out, fset.Position(n.Pos()).String()+": starts a goroutine; the core is driven, it does not run on its own")
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok && timeName != "" && id.Name == timeName && forbiddenTimeCalls[n.Sel.Name] {
				out = append(out, fset.Position(n.Pos()).String()+": uses time."+n.Sel.Name+"; read sim.Clock instead")
			}
		}
		return true
	})
	return out
}
