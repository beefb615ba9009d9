package summary

import (
	"fmt"
)

// ServerProcesses is what became of the stdio server processes a run
// started, and of the processes they started, when the run ended. It is
// absent for HTTP targets.
type ServerProcesses struct {
	// Signalled counts servers that did not exit when their stdin closed
	// and were sent SIGTERM.
	Signalled int `json:"signalled"`
	// Killed counts those of them that ignored SIGTERM too and were
	// killed.
	Killed int `json:"killed"`
	// Leftover counts processes the servers started (in their own process
	// group or session, or detached) that were still running after every
	// server had exited: work nobody can stop any more.
	Leftover int `json:"leftover"`
	// LeftRunning: the leftover processes were left running
	// (--leave-children); otherwise mcpchaos killed them.
	LeftRunning bool `json:"left_running"`
	// Notes say each of these in a sentence (at most maxProcessNotes).
	Notes []string `json:"notes,omitempty"`
}

// maxProcessNotes bounds ServerProcesses.Notes.
const maxProcessNotes = 20

// Note adds a sentence, up to maxProcessNotes.
func (p *ServerProcesses) Note(format string, args ...any) {
	if len(p.Notes) < maxProcessNotes {
		p.Notes = append(p.Notes, fmt.Sprintf(format, args...))
	}
}

// Clone returns a deep copy, or nil.
func (p *ServerProcesses) Clone() *ServerProcesses {
	if p == nil {
		return nil
	}
	c := *p
	c.Notes = append([]string(nil), p.Notes...)
	return &c
}
