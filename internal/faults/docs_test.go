package faults

import (
	"slices"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// TestDocsTable: docs/faults.md's table of kinds (the one headed
// "| kind | direction |") has one row per kind of the registry (kinds.go),
// in its order, and no other.
func TestDocsTable(t *testing.T) {
	var rows []string
	for _, r := range testutil.DocTableRows(t, "../../docs/faults.md", "| kind | direction |") {
		rows = append(rows, r.Key)
	}
	if !slices.Equal(rows, Kinds()) {
		t.Errorf("docs/faults.md's table lists %v; the registry (faults/kinds.go) has %v, in this order", rows, Kinds())
	}
}

// TestCutsCalls pins which kinds the engine's automatic quiet windows
// follow: the ones that stop a call the server may go on with.
func TestCutsCalls(t *testing.T) {
	var cuts []string
	for _, k := range Kinds() {
		if CutsCalls(k) {
			cuts = append(cuts, k)
		}
	}
	if want := []string{"cancel", "disconnect"}; !slices.Equal(cuts, want) {
		t.Errorf("kinds that cut calls: %v, want %v", cuts, want)
	}
	if CutsCalls("no_such_kind") {
		t.Error("an unknown kind cuts calls")
	}
}
