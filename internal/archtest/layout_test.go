package archtest

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

// sectionRe matches a package's heading in docs/layout.md: the package
// directory and its layer.
var sectionRe = regexp.MustCompile("(?m)^## `([^`]+)` \\(([a-z]+)\\)$")

// TestLayoutDoc: docs/layout.md has a section for every package of the
// module, headed with the layer the layers table gives it, and no section
// for a package that does not exist; so the map a reader follows is the
// one TestImportsGoDownward enforces.
func TestLayoutDoc(t *testing.T) {
	root, _ := moduleRoot(t)
	b, err := os.ReadFile(filepath.Join(root, "docs", "layout.md"))
	if err != nil {
		t.Fatal(err)
	}
	checkLayoutDoc(t, string(b), slices.Collect(maps.Keys(packageImports(t, root))))
}

// checkLayoutDoc reports every package of pkgs without a section in doc,
// every section with another layer than the table's, and every section
// for a package not in pkgs.
func checkLayoutDoc(t testing.TB, doc string, pkgs []string) {
	t.Helper()
	sections := map[string]string{}
	for _, m := range sectionRe.FindAllStringSubmatch(doc, -1) {
		if _, dup := sections[m[1]]; dup {
			t.Errorf("docs/layout.md: two sections for %s", m[1])
		}
		sections[m[1]] = m[2]
	}
	for _, dir := range slices.Sorted(slices.Values(pkgs)) {
		layer, ok := layerOf(dir)
		if !ok {
			continue // TestImportsGoDownward names it
		}
		got, ok := sections[dir]
		switch {
		case !ok:
			t.Errorf("docs/layout.md has no section \"## `%s` (%s)\": say what the package does and may import", dir, layerNames[layer])
		case got != layerNames[layer]:
			t.Errorf("docs/layout.md puts %s in layer %q; the layers table says %q", dir, got, layerNames[layer])
		}
	}
	for _, dir := range slices.Sorted(maps.Keys(sections)) {
		if !slices.Contains(pkgs, dir) {
			t.Errorf("docs/layout.md has a section for %s, which is no package of the module", dir)
		}
	}
}

// TestCheckLayoutDoc: the check catches a missing section, a wrong layer
// and a section for no package.
func TestCheckLayoutDoc(t *testing.T) {
	for _, tt := range []struct {
		name, doc string
		fails     bool
	}{
		{"agrees", "## `client` (base)\n\n## `internal/engine` (run)\n", false},
		{"missing section", "## `client` (base)\n", true},
		{"wrong layer", "## `client` (parts)\n\n## `internal/engine` (run)\n", true},
		{"no such package", "## `client` (base)\n\n## `internal/engine` (run)\n\n## `gone` (parts)\n", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			checkLayoutDoc(rec, tt.doc, []string{"client", "internal/engine"})
			if rec.failed != tt.fails {
				t.Errorf("failed = %v, want %v", rec.failed, tt.fails)
			}
		})
	}
}

// recorder notes a failure instead of failing the test.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Helper()               {}
