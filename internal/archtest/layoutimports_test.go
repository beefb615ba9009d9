package archtest

import (
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLayoutDocImports: the section of docs/layout.md of each package
// below the command names every package of the module that it imports
// (its non-test files), so "what it may import" is what it does import.
// A section names a package by its path or its last element in
// backquotes (`client/vocab`, `scenarios`), or a whole layer in its
// sentence that starts "Imports" ("the tables", "the base", "the parts").
// The command ("every package above")
// and the test helpers are not held to it.
func TestLayoutDocImports(t *testing.T) {
	root, module := moduleRoot(t)
	b, err := os.ReadFile(filepath.Join(root, "docs", "layout.md"))
	if err != nil {
		t.Fatal(err)
	}
	imports := map[string][]string{}
	for dir, sites := range packageImports(t, root) {
		for _, s := range sites {
			if rel, ok := strings.CutPrefix(s.path, module+"/"); ok && !slices.Contains(imports[dir], rel) {
				imports[dir] = append(imports[dir], rel)
			}
		}
	}
	checkLayoutImports(t, string(b), imports)
}

// checkLayoutImports reports every import of a package that its section
// of doc does not name (see TestLayoutDocImports).
func checkLayoutImports(t testing.TB, doc string, imports map[string][]string) {
	t.Helper()
	for _, dir := range slices.Sorted(maps.Keys(imports)) {
		layer, ok := layerOf(dir)
		if !ok || layer >= layerCmd {
			continue
		}
		body, ok := layoutSection(doc, dir)
		if !ok {
			continue // TestLayoutDoc names it
		}
		for _, imp := range imports[dir] {
			to, _ := layerOf(imp)
			named := strings.Contains(body, "`"+imp+"`") || strings.Contains(body, "`"+path.Base(imp)+"`") ||
				strings.Contains(importsSentence(body), "the "+layerNames[to])
			if !named {
				t.Errorf("docs/layout.md: the section of %s does not name %s, which it imports", dir, imp)
			}
		}
	}
}

// importsSentence is the sentence of a section that starts "Imports", up
// to its full stop ("" when there is none): where a whole layer may be
// named.
func importsSentence(body string) string {
	i := strings.Index(body, "Imports ")
	if i < 0 {
		return ""
	}
	body = body[i:]
	for j := 0; j+1 < len(body); j++ {
		if body[j] == '.' && (body[j+1] == ' ' || body[j+1] == '\n') {
			return body[:j]
		}
	}
	return body
}

// layoutSection returns the text of dir's section, up to the next heading.
func layoutSection(doc, dir string) (string, bool) {
	loc := sectionRe.FindAllStringSubmatchIndex(doc, -1)
	for i, m := range loc {
		if doc[m[2]:m[3]] != dir {
			continue
		}
		end := len(doc)
		if i+1 < len(loc) {
			end = loc[i+1][0]
		}
		return doc[m[1]:end], true
	}
	return "", false
}

// TestCheckLayoutImports: an import the section names by path, by last
// element or by its layer passes; one it does not name fails; the command
// is not held to it.
func TestCheckLayoutImports(t *testing.T) {
	doc := "## `internal/faults` (parts)\n\nImports `client` and `client/vocab`.\n\n" +
		"## `internal/engine` (run)\n\nImports the tables, the base and the parts.\n\n" +
		"## `internal/toolschema` (parts)\n\nUnlike the parts of the run. Imports `client`.\n\n" +
		"## `cmd/mcpchaos` (cmd)\n\nMay import every package above.\n"
	tests := []struct {
		name    string
		imports map[string][]string
		fails   bool
	}{
		{"by path and by name", map[string][]string{"internal/faults": {"client", "client/vocab"}}, false},
		{"by last element", map[string][]string{"internal/faults": {"internal/something/client"}}, false},
		{"by layer", map[string][]string{"internal/engine": {"internal/faults", "results", "internal/redact"}}, false},
		{"not named", map[string][]string{"internal/faults": {"internal/scenarios"}}, true},
		{"a layer not named", map[string][]string{"internal/faults": {"internal/probes"}}, true},
		{"a layer named outside the Imports sentence", map[string][]string{"internal/toolschema": {"internal/probes"}}, true},
		{"the command", map[string][]string{"cmd/mcpchaos": {"internal/proxy"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			checkLayoutImports(rec, doc, tt.imports)
			if rec.failed != tt.fails {
				t.Errorf("failed = %v, want %v", rec.failed, tt.fails)
			}
		})
	}
}
