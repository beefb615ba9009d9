package faultkinds

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// TestFaultsDoc: docs/faults.md's table of kinds (the one headed "| kind |
// direction |") has one row per Client kind, in the table's order, and no
// other, and its column "a correct server" is the kind's Server text.
func TestFaultsDoc(t *testing.T) {
	rows := testutil.DocTableRows(t, "../../docs/faults.md", "| kind | direction |")
	var keys []string
	for _, r := range rows {
		keys = append(keys, r.Key)
		k, ok := Lookup(r.Key)
		if !ok {
			continue
		}
		if got := r.Cells[len(r.Cells)-1]; got != k.Server {
			t.Errorf("docs/faults.md, kind %s, column \"a correct server\":\n  %s\nthe registry (faultkinds.Table) says:\n  %s", r.Key, got, k.Server)
		}
	}
	if want := Names(Client); !slices.Equal(keys, want) {
		t.Errorf("docs/faults.md's table lists %v; the registry's kinds of a scenario are %v, in this order", keys, want)
	}
}

// TestProxyDoc: docs/proxy.md has a section "### `KIND`" for each Proxy
// kind, in the table's order, that says what a correct client does in the
// kind's Client text (line breaks aside).
func TestProxyDoc(t *testing.T) {
	b, err := os.ReadFile("../../docs/proxy.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	last := -1
	for _, name := range Names(Proxy) {
		head := "\n### `" + name + "`\n"
		i := strings.Index(doc, head)
		if i < 0 {
			t.Errorf("docs/proxy.md has no section %q", strings.TrimSpace(head))
			continue
		}
		if i < last {
			t.Errorf("docs/proxy.md: the section of %s comes before the one it follows in the registry", name)
		}
		last = i
		body := doc[i+len(head):]
		if end := strings.Index(body, "\n#"); end >= 0 {
			body = body[:end]
		}
		k, _ := Lookup(name)
		if !strings.Contains(oneLine(body), k.Client) {
			t.Errorf("docs/proxy.md, section %s, does not say what the registry (faultkinds.Table) says a correct client does:\n  %s", name, k.Client)
		}
	}
}

// oneLine joins a paragraph's lines: its words with one space between.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestScenariosDoc: docs/scenarios.md's tables of the faults' keys (the
// per-call kinds, "| kind | keys |", then the background kinds, "| kind |
// meaning |") list every Client kind once, in the registry's order.
func TestScenariosDoc(t *testing.T) {
	var keys []string
	for _, header := range []string{"| kind | keys |", "| kind | meaning |"} {
		for _, r := range testutil.DocTableRows(t, "../../docs/scenarios.md", header) {
			keys = append(keys, r.Key)
		}
	}
	if want := Names(Client); !slices.Equal(keys, want) {
		t.Errorf("docs/scenarios.md's tables of fault keys list %v; the registry's kinds of a scenario are %v, in this order", keys, want)
	}
}
