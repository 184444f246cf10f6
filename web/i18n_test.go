package web

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/a-h/templ"
	"github.com/loglab/loglab/engine/view"
)

// literalText joins the string literals of an expression: a T argument is
// a literal, a fmt.Sprintf format, or a concatenation with values.
func literalText(e ast.Expr) string {
	var b strings.Builder
	ast.Inspect(e, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			s, err := strconv.Unquote(lit.Value)
			if err == nil {
				b.WriteString(s)
			}
		}
		return true
	})
	return b.String()
}

func hasLetter(s string) bool { return strings.IndexFunc(s, unicode.IsLetter) >= 0 }
func hasHan(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) }) >= 0
}

// checkPair: chrome with English words needs a Chinese text of its own,
// not a blank or a copy of the English.
func checkPair(t *testing.T, where, en, zh string) {
	t.Helper()
	if !hasLetter(en) {
		return
	}
	if zh == "" || zh == en || !hasHan(zh) {
		t.Errorf("%s: %q has no Chinese translation (zh %q)", where, en, zh)
	}
}

// TestChromeIsTranslated reads every T(en, zh) call and words{en, zh}
// literal in the web package (the templ sources, through the Go templ
// generates from them, which TestGeneratedCodeIsFresh keeps in step): no
// piece of chrome is left with its Chinese missing or copied from the
// English. words{en: ...} alone is Kafka's terms, the same in both.
func TestChromeIsTranslated(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	calls := 0
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			var en, zh ast.Expr
			switch n := n.(type) {
			case *ast.CallExpr:
				if id, ok := n.Fun.(*ast.Ident); !ok || id.Name != "T" || len(n.Args) != 2 {
					return true
				}
				en, zh = n.Args[0], n.Args[1]
			case *ast.CompositeLit:
				if id, ok := n.Type.(*ast.Ident); !ok || id.Name != "words" || len(n.Elts) != 2 {
					return true
				}
				en, zh = n.Elts[0], n.Elts[1]
				if kv, ok := en.(*ast.KeyValueExpr); ok {
					en = kv.Value
				}
				if kv, ok := zh.(*ast.KeyValueExpr); ok {
					zh = kv.Value
				}
			default:
				return true
			}
			calls++
			checkPair(t, fset.Position(n.Pos()).String(), literalText(en), literalText(zh))
			return true
		})
	}
	if calls < 50 {
		t.Errorf("found %d translated texts: is the parser still reading the generated code?", calls)
	}
}

var tPair = regexp.MustCompile(`<span lang="en" data-l="en">([^<]*)</span>(<span lang="zh-CN" data-l="zh">([^<]*)</span>)?`)

// TestRenderedChromeIsTranslated: in views drawn from many states, every
// English span T draws is followed by its Chinese one, with text of its
// own, computed texts included.
func TestRenderedChromeIsTranslated(t *testing.T) {
	views := map[string]templ.Component{
		"no cluster":    ClusterView(view.Cluster{}),
		"worst":         ClusterView(worstView()),
		"restart limbo": ClusterView(restartLimbo()),
		"groups":        ClusterView(twoGroups()),
		"layout":        Layout("x", "lab"),
	}
	for name, c := range views {
		html, err := RenderString(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		pairs := tPair.FindAllStringSubmatch(html, -1)
		if len(pairs) == 0 {
			t.Errorf("%s: no chrome drawn in two languages", name)
		}
		for _, m := range pairs {
			if m[2] == "" {
				t.Errorf("%s: %q is drawn without its Chinese span", name, m[1])
				continue
			}
			checkPair(t, name, m[1], m[3])
		}
	}
}
