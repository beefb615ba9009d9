package engine

import (
	"github.com/mcpchaos/mcpchaos/report"
)

// Summary completes the aggregate of the run's records with what only the
// run as a whole knows (Inputs), builds the summary, evaluates the checks
// and decides whether the run passed (a violation verdict fails it when
// failOnViolation).
func (info *Info) Summary(agg *report.Aggregator, checks []report.Check, failOnViolation bool) *report.Summary {
	agg.SetInputs(info.Inputs())
	s := agg.Summary(info.Meta())
	s.Evaluate(checks, failOnViolation)
	return s
}

// Inputs returns what only the run as a whole knows: connection-level
// counts, orphans, background faults, the load's length. The results
// file's trailer keeps them.
func (info *Info) Inputs() report.RunInputs {
	in := report.RunInputs{Duration: info.Duration, Connection: info.Conn, Orphans: info.Orphans, RetriesNotMade: info.RetriesNotMade,
		Pacer:   info.Pacer,
		Gateway: info.Gateway}
	for _, b := range info.Background {
		in.Background = append(in.Background, report.Background{Kind: b.Kind, Sent: b.Sent, Refused: b.Failed})
	}
	return in
}

// Meta returns the run's description for its summary.
func (info *Info) Meta() report.Meta {
	h := info.Header
	return report.Meta{Scenario: h.Scenario, Era: h.Era, Transport: h.Transport, HTTPVersion: h.HTTPVersion, Target: h.Target,
		Server: h.Server, Seed: h.Seed, Started: info.Started, Duration: info.Duration, Interrupted: info.Interrupted}
}
