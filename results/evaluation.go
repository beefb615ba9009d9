package results

import "encoding/json"

// SchemaVersion is the version of the results file's layout and of the
// summary JSON (its `schema_version`). Version 2 added the header's
// evaluation and the trailer's run inputs; a file without schema_version is
// version 1: it still reads, but its checks and run-level inputs were not
// recorded (see docs/results.md).
const SchemaVersion = 2

// Evaluation is what the run judged itself by, recorded in the header so a
// report can evaluate the same checks again on the records (or on the
// records of several files merged).
type Evaluation struct {
	// Checks are the scenario's checks as written, in order.
	Checks []CheckSpec `json:"checks"`
	// FailOnViolation is the run's effective setting (the scenario's, or
	// false with --no-fail-on-violation).
	FailOnViolation bool `json:"fail_on_violation"`
	// Progress are the thresholds that defined a progress violation.
	Progress ProgressRules `json:"progress"`
}

// CheckSpec is one check as written in the scenario, and where.
type CheckSpec struct {
	Check  string `json:"check"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
}

// ProgressRules are the progress thresholds of the run, in the summary's
// units.
type ProgressRules struct {
	GraceMs float64 `json:"grace_ms"`
	StallMs float64 `json:"stall_ms"`
	FloodHz float64 `json:"flood_hz"`
}

// RunInputs is the trailer's record of what only the run as a whole knew
// (connection counts, orphan probes, background faults, the load's
// length). Package report defines its members; here it is kept as JSON.
type RunInputs = json.RawMessage
