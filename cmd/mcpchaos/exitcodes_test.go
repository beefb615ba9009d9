package main

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestExitCode: errors map to exit statuses in one place.
func TestExitCode(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"no error is success", nil, exitOK},
		{"a plain error is bad input", errors.New(`scenario "x.yaml": no such file`), exitUsage},
		{"a run error", runError(errors.New("listen: address in use")), exitRunError},
		{"a wrapped run error keeps its status", fmt.Errorf("serve: %w", runError(errors.New("boom"))), exitRunError},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := exitCode(tc.err); got != tc.want {
				t.Errorf("exitCode(%v) = %d, want %d", tc.err, got, tc.want)
			}
		})
	}
}

// TestFailPrintsAndMaps: fail prints "mcpchaos CMD: error" and returns the
// error's status.
func TestFailPrintsAndMaps(t *testing.T) {
	var b bytes.Buffer
	if got := fail(&b, "serve", runError(errors.New(`listen "127.0.0.1:1": denied`))); got != exitRunError {
		t.Errorf("fail returned %d, want %d", got, exitRunError)
	}
	if want := "mcpchaos serve: listen \"127.0.0.1:1\": denied\n"; b.String() != want {
		t.Errorf("fail printed %q, want %q", b.String(), want)
	}
}

// TestNoBareExitCodes: no command returns, assigns to a variable named
// code, or exits with a number written out; every status is one of the
// named codes of exitcodes.go (where the numbers are written once).
func TestNoBareExitCodes(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || name == "exitcodes.go" {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			var bare []ast.Expr
			switch n := n.(type) {
			case *ast.ReturnStmt:
				bare = n.Results
			case *ast.AssignStmt:
				for i, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok && id.Name == "code" && i < len(n.Rhs) {
						bare = append(bare, n.Rhs[i])
					}
				}
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Exit" {
					bare = n.Args
				}
			}
			for _, e := range bare {
				if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.INT {
					t.Errorf("%s: a bare exit status %s: use a named code of exitcodes.go", fset.Position(lit.Pos()), lit.Value)
				}
			}
			return true
		})
	}
	if checked < 10 {
		t.Fatalf("checked %d files; is the directory right?", checked)
	}
}
