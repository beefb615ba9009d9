package scenarios

import "path"

// Fault is one entry of the faults list. This package reads what every
// fault has in common: its kind and, for the faults that act on calls,
// the probability, the tool patterns and the time. Package faults owns
// the kinds: from Params it decodes each kind's own keys, checks which
// keys apply to the kind and reports what is wrong at the value's
// FILE:LINE:COLUMN, as the rest of the decoder does.
type Fault struct {
	Kind string
	Pos  Pos

	Probability   float64  // 0..1, default 1
	Tools         []string // path.Match patterns over tool names; empty = every tool
	After         *Dist    // when, from the send
	AfterProgress int      // or right after this many progress notifications (>= 1)

	// Params is the whole entry as written, for package faults.
	Params Params
}

// faultKeys are the keys decoded here; every other key is the kind's own.
var faultKeys = append(append([]string{"kind"}, perCallFields.names()...), timedFields.names()...)

// AppliesTo reports whether f may act on a call of tool: Tools is empty or
// one of its patterns matches.
func (f Fault) AppliesTo(tool string) bool {
	if len(f.Tools) == 0 {
		return true
	}
	for _, p := range f.Tools {
		if ok, _ := path.Match(p, tool); ok {
			return true
		}
	}
	return false
}
