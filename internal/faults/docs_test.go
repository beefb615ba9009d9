package faults

import (
	"slices"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/faultkinds"
)

// TestRegistry: package faults builds exactly the kinds the registry
// gives to faultkinds.Client, and Kinds and Schemas list them in the
// registry's order: a kind added to the registry for the client and not
// built here, or built here and not registered, fails. (docs/faults.md is
// held to the registry by faultkinds' TestFaultsDoc.)
func TestRegistry(t *testing.T) {
	var built []string
	for _, k := range kinds {
		built = append(built, k.name)
	}
	if err := faultkinds.Differ(built, faultkinds.Client); err != nil {
		t.Error(err)
	}
	want := faultkinds.Names(faultkinds.Client)
	var schemas []string
	for _, s := range Schemas() {
		schemas = append(schemas, s.Name)
	}
	if !slices.Equal(schemas, want) || !slices.Equal(Kinds(), want) {
		t.Errorf("Schemas lists %v and Kinds %v; want the registry's %v, in its order", schemas, Kinds(), want)
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
