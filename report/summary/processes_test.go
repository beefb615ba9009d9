package summary

import "testing"

// TestServerProcessesNotes: notes are bounded and copied, not shared.
func TestServerProcessesNotes(t *testing.T) {
	t.Parallel()
	var sp ServerProcesses
	for i := range 2 * maxProcessNotes {
		sp.Note("process %d", i)
	}
	if len(sp.Notes) != maxProcessNotes {
		t.Errorf("%d notes, want at most %d", len(sp.Notes), maxProcessNotes)
	}
	c := sp.Clone()
	c.Notes[0] = "changed"
	if sp.Notes[0] != "process 0" {
		t.Error("clone shares its notes")
	}
	if (*ServerProcesses)(nil).Clone() != nil {
		t.Error("clone of nil is not nil")
	}
}
