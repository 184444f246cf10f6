package protocol

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strings"
	"testing"
)

// Every message type's Kind must be in Kinds, or `net drop type=` would
// refuse a message that exists. The types are found by reading the
// package's source for Kind methods, so a new message cannot be forgotten.
func TestKindsListsEveryMessage(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	var seen []string
	fset := token.NewFileSet()
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Name.Name != "Kind" || fn.Recv == nil || len(fn.Body.List) != 1 {
				continue
			}
			ret, ok := fn.Body.List[0].(*ast.ReturnStmt)
			if !ok || len(ret.Results) != 1 {
				continue
			}
			lit, ok := ret.Results[0].(*ast.BasicLit)
			if !ok {
				continue
			}
			kind := strings.Trim(lit.Value, `"`)
			if !slices.Contains(seen, kind) {
				// KRaft's Fetch shares its name with the brokers' (as the
				// API key does in Kafka): one kind, two message types.
				seen = append(seen, kind)
				found++
			}
			if !slices.Contains(Kinds, kind) {
				t.Errorf("message kind %q (%s) is missing from Kinds", kind, e.Name())
			}
		}
	}
	if found != len(Kinds) {
		// A kind listed twice, or one no message has.
		t.Errorf("found %d Kind methods, Kinds lists %d", found, len(Kinds))
	}
}
