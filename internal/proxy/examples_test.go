package proxy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/scenarios"
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
	for _, k := range kindNames() {
		if !shown[k] {
			t.Errorf("no example in examples/proxy shows the fault %s", k)
		}
	}
	if !slices.Contains(kindNames(), "progress_endless") {
		t.Error("the kind table lost progress_endless")
	}
}

// TestDocs: docs/proxy.md names every summary key (its section for every
// fault kind is faultkinds' TestProxyDoc).
func TestDocs(t *testing.T) {
	b, err := os.ReadFile("../../docs/proxy.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	js, err := json.Marshal(Clients{})
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
