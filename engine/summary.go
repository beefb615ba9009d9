package engine

import (
	"github.com/mcpchaos/mcpchaos/report"
)

// Summary completes the aggregate of the run's records with what only the
// run as a whole knows (connection-level counts, orphans, background
// faults), builds the summary, evaluates the checks and decides whether the
// run passed (a violation verdict fails it when failOnViolation).
func (info *Info) Summary(agg *report.Aggregator, checks []report.Check, failOnViolation bool) *report.Summary {
	agg.SetConnection(info.Conn)
	agg.SetOrphans(info.Orphans)
	for _, b := range info.Background {
		agg.AddBackground(b.Kind, b.Sent, b.Failed)
	}
	h := info.Header
	s := agg.Summary(report.Meta{Scenario: h.Scenario, Era: h.Era, Transport: h.Transport, Target: h.Target,
		Server: h.Server, Seed: h.Seed, Started: info.Started, Duration: info.Duration, Interrupted: info.Interrupted})
	s.Throttling.RetriesNotMade = info.RetriesNotMade
	s.Evaluate(checks, failOnViolation)
	return s
}
