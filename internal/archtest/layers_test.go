package archtest

import (
	"bufio"
	"fmt"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The layers, lowest first. A package's non-test files may import a
// package of a lower layer only; within layerTests (test helpers and
// test-only packages) packages may also import each other.
const (
	// layerTables: standard-library-only tables that a base package and a
	// part share (the built-in target's knob table, read by the scenario
	// decoder and by the target itself).
	layerTables = iota
	// layerBase: the wire, the scenario file, the results file. The
	// standard library and their one format library (see external).
	layerBase
	// layerSummary: a run's summary as data (report/summary), which the
	// parts that build, judge and render it share.
	layerSummary
	// layerVerdicts: the verdicts scored on a summary (report/verdict),
	// which the Aggregator asks for.
	layerVerdicts
	// layerParts: what a run is made of, each on the base.
	layerParts
	// layerRun: the run loop (engine) and the fault-injecting proxy.
	layerRun
	// layerCmd: the command.
	layerCmd
	// layerTests: helpers for tests and packages that hold only tests.
	// Nothing else imports them.
	layerTests
)

var layerNames = [...]string{"tables", "base", "summary", "verdicts", "parts", "run", "cmd", "tests"}

// layers gives each package directory of the module (relative to the
// module root) its layer. A directory not listed takes the layer of its
// nearest listed parent, so internal/anything is a test helper; list a
// sub-package that belongs lower (targetserver/knobs, the stdlib-only knob
// table that scenarios imports, is a table). A package
// with no layer fails the test: add it here.
var layers = map[string]int{
	"internal/targetserver/knobs": layerTables,
	"client/vocab":                layerTables,
	"internal/redact":             layerTables,
	"internal/termsafe":           layerTables,
	"internal/jsonscan":           layerTables,
	"client/rpcmsg":               layerTables,
	"internal/faultkinds":         layerTables,

	"client":             layerBase,
	"internal/scenarios": layerBase,
	"results":            layerBase,
	"internal/series":    layerBase,

	"report/summary": layerSummary,
	"report/verdict": layerVerdicts,

	"internal/faults":       layerParts,
	"internal/probes":       layerParts,
	"internal/targetserver": layerParts,
	"report":                layerParts,
	"report/html":           layerParts,
	"report/export":         layerParts,
	"report/merge":          layerParts,
	"report/text":           layerParts,
	"internal/toolschema":   layerParts,
	"internal/livemetrics":  layerParts,

	"internal/engine": layerRun,
	"internal/proxy":  layerRun,

	"cmd/mcpchaos": layerCmd,

	"internal": layerTests,
	"bench":    layerTests,
	"deploy":   layerTests,
	"e2e":      layerTests,
}

// external lists, for each base package, the import path prefixes outside
// the standard library it may use: its one format library. Packages of
// higher layers may import any module in go.mod.
var external = map[string][]string{
	// HTTP/2's framing and HPACK: the client frames its own streams
	// (client/h2conn.go; docs/decisions.md, "Our own HTTP/2 client").
	"client":             {"golang.org/x/net/http2"},
	"internal/scenarios": {"github.com/goccy/go-yaml"},
	"results":            nil,
	"internal/series":    nil,
}

// banned package names: a name that says nothing about what it holds.
var banned = []string{"util", "utils", "common", "misc", "helpers"}

func TestImportsGoDownward(t *testing.T) {
	root, module := moduleRoot(t)
	pkgs := packageImports(t, root)
	if len(pkgs) < 5 {
		t.Fatalf("found %d packages under %s; is the module root right?", len(pkgs), root)
	}
	for _, dir := range slices.Sorted(maps.Keys(pkgs)) {
		imports := pkgs[dir]
		if slices.Contains(banned, path.Base(dir)) {
			t.Errorf("%s: a package named %q says nothing about what it holds", dir, path.Base(dir))
		}
		layer, ok := layerOf(dir)
		if !ok {
			t.Errorf("%s has no layer: add it to the layers table in %s", dir, "internal/archtest/layers_test.go")
			continue
		}
		for _, imp := range imports {
			rel, inModule := strings.CutPrefix(imp.path, module+"/")
			if !inModule {
				if layer <= layerBase && !isStd(imp.path) && !allowedExternal(dir, imp.path) {
					t.Errorf("%s: %s imports %s; a base package uses the standard library and only its one format library (external in layers_test.go)", imp.pos, dir, imp.path)
				}
				continue
			}
			to, ok := layerOf(rel)
			if !ok {
				t.Errorf("%s: %s imports %s, which has no layer", imp.pos, dir, rel)
				continue
			}
			if mayImport(dir, layer, rel, to) {
				continue
			}
			t.Errorf("%s: %s (layer %s) imports %s (layer %s): imports go downward only", imp.pos, dir, layerNames[layer], rel, layerNames[to])
		}
	}
}

// mayImport reports whether package dir (in layer) may import package rel
// (in layer to): a lower layer; within layerTests, any; and a sub-package
// may import the package it extends, its parent directory (report/html
// renders report's Summary), never the other way round.
func mayImport(dir string, layer int, rel string, to int) bool {
	return to < layer || (to == layer && layer == layerTests) ||
		(to == layer && strings.HasPrefix(dir, rel+"/"))
}

// TestMayImport pins the import rules.
func TestMayImport(t *testing.T) {
	tests := []struct {
		name, dir, rel string
		want           bool
	}{
		{"downward", "report", "results", true},
		{"upward", "results", "report", false},
		{"sideways", "report", "internal/probes", false},
		{"sub-package on its parent", "report/html", "report", true},
		{"the text on the summary", "report/text", "report/summary", true},
		{"the aggregator on the summary", "report", "report/summary", true},
		{"the summary on the aggregator", "report/summary", "report", false},
		{"the aggregator on the verdicts", "report", "report/verdict", true},
		{"the verdicts on the summary", "report/verdict", "report/summary", true},
		{"the verdicts on the aggregator", "report/verdict", "report", false},
		{"parent on its sub-package", "report", "report/html", false},
		{"sibling sub-packages", "report/export", "report/merge", false},
		{"the proxy on the run's histogram", "internal/proxy", "report", true},
		{"report on the proxy's summary", "report", "internal/proxy", false},
		{"a name that only starts alike", "reporting", "report", false},
		{"tests on tests", "internal/runtest", "internal/testutil", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			layer, _ := layerOf(tt.dir)
			to, _ := layerOf(tt.rel)
			if tt.dir == "reporting" {
				layer = layerParts // not a package of the module
			}
			if got := mayImport(tt.dir, layer, tt.rel, to); got != tt.want {
				t.Errorf("mayImport(%q, %q) = %v, want %v", tt.dir, tt.rel, got, tt.want)
			}
		})
	}
}

// TestLayerOf pins the lookup rules the table relies on.
func TestLayerOf(t *testing.T) {
	tests := []struct {
		dir  string
		want int
		ok   bool
	}{
		{"client", layerBase, true},
		{"report", layerParts, true},
		{"report/merge", layerParts, true},
		{"report/summary", layerSummary, true},
		{"report/verdict", layerVerdicts, true},
		{"internal/testutil", layerTests, true},
		{"internal/targetserver/knobs", layerTables, true},
		{"internal/redact", layerTables, true},
		{"internal/targetserver/other", layerParts, true},
		{"cmd/other", 0, false},
		{"newpkg", 0, false},
	}
	for _, tt := range tests {
		got, ok := layerOf(tt.dir)
		if got != tt.want || ok != tt.ok {
			t.Errorf("layerOf(%q) = %d, %v; want %d, %v", tt.dir, got, ok, tt.want, tt.ok)
		}
	}
}

// layerOf returns the layer of a package directory: its own entry, or its
// nearest listed parent's.
func layerOf(dir string) (int, bool) {
	for d := dir; d != "." && d != "/" && d != ""; d = path.Dir(d) {
		if l, ok := layers[d]; ok {
			return l, true
		}
	}
	return 0, false
}

func allowedExternal(dir, imp string) bool {
	for _, prefix := range external[dir] {
		if imp == prefix || strings.HasPrefix(imp, prefix+"/") {
			return true
		}
	}
	return false
}

// isStd reports whether an import path is in the standard library: its
// first element has no dot.
func isStd(imp string) bool {
	first, _, _ := strings.Cut(imp, "/")
	return !strings.Contains(first, ".")
}

type importSite struct {
	path string
	pos  token.Position // file:line of the import
}

// packageImports parses the imports of every non-test Go file under root
// (skipping testdata, hidden and underscore directories) and returns them
// by package directory, relative to root with forward slashes. Build tags
// are ignored: a file for any platform counts.
func packageImports(t *testing.T, root string) map[string][]importSite {
	t.Helper()
	fset := token.NewFileSet()
	pkgs := make(map[string][]importSite)
	err := walkSource(root, false, func(p, dir string) error {
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return fmt.Errorf("parse imports: %w", err)
		}
		if _, seen := pkgs[dir]; !seen {
			pkgs[dir] = nil // a package without imports is still a package
		}
		for _, spec := range f.Imports {
			imp, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				return fmt.Errorf("%s: import %s: %w", fset.Position(spec.Pos()), spec.Path.Value, err)
			}
			pos := fset.Position(spec.Pos())
			if r, err := filepath.Rel(root, pos.Filename); err == nil {
				pos.Filename = filepath.ToSlash(r)
			}
			pkgs[dir] = append(pkgs[dir], importSite{path: imp, pos: pos})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// moduleRoot finds go.mod above the test's directory and returns the
// directory and the module path.
func moduleRoot(t *testing.T) (dir, module string) {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		f, err := os.Open(filepath.Join(dir, "go.mod"))
		if err == nil {
			defer f.Close()
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if m, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
					return dir, strings.Trim(strings.TrimSpace(m), `"`)
				}
			}
			t.Fatalf("%s/go.mod has no module line", dir)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}
