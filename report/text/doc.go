// Package text writes a run's Summary as the human block `mcpchaos run`
// prints: the run, calls, rates, latencies, one block per area (with
// numbered footnotes under a count that looks alarming beside a pass),
// the verdicts with their evidence, the checks and the Result line.
//
// It reads the exported Summary only (like report/html), so a summary read
// back from JSON prints as the run printed it. Every string that came from
// outside (a server's names and errors, a results file's fields) is
// escaped before it reaches a terminal (internal/termsafe).
package text
