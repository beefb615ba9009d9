package proxy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/report"
)

// TestExamples: every file in examples/proxy is a valid proxy file, and
// every fault kind has an example.
func TestExamples(t *testing.T) {
	files, err := filepath.Glob("../../examples/proxy/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no proxy examples: %v", err)
	}
	shown := map[string]bool{}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			pf, err := scenarios.LoadProxy(file)
			if err != nil {
				t.Fatalf("the example does not load:\n%v", err)
			}
			if _, err := New(pf); err != nil {
				t.Fatalf("the example's faults do not build:\n%v", err)
			}
			for _, f := range pf.Faults {
				shown[f.Kind] = true
			}
		})
	}
	for _, k := range kinds {
		if !shown[k.name] {
			t.Errorf("no example in examples/proxy shows the fault %s", k.name)
		}
	}
	if !slices.Contains(kindNames(), "progress_endless") {
		t.Error("the kind table lost progress_endless")
	}
}

// TestDocs: docs/proxy.md has a section for every fault kind and names
// every summary key.
func TestDocs(t *testing.T) {
	b, err := os.ReadFile("../../docs/proxy.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, k := range kinds {
		if !strings.Contains(doc, "\n### `"+k.name+"`\n") {
			t.Errorf("docs/proxy.md has no section for the fault %s", k.name)
		}
	}
	js, err := json.Marshal(report.ProxyClients{})
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]any
	if err := json.Unmarshal(js, &keys); err != nil {
		t.Fatal(err)
	}
	for k := range keys {
		if !strings.Contains(doc, k) {
			t.Errorf("docs/proxy.md does not name the summary key clients.%s", k)
		}
	}
}
