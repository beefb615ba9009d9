package engine

import (
	"errors"
	"fmt"

	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/scenarios"
)

// Checks turns a scenario's checks into the report's and checks each key
// against the summary's; every error starts with FILE:LINE:COLUMN.
func Checks(sc *scenarios.Scenario) ([]report.Check, []error) {
	checks := make([]report.Check, 0, len(sc.Checks))
	var errs []error
	for _, c := range sc.Checks {
		rc := report.Check{Raw: c.Raw, Key: c.Key, Hist: c.Hist, Percentile: c.Percentile, Op: c.Op, Value: c.Value,
			Unit: c.Unit, Line: c.Pos.Line, Column: c.Pos.Column}
		if err := report.ValidateCheck(rc); err != nil {
			// The position goes in front, as FILE:LINE:COLUMN, once.
			var ce *report.CheckError
			if errors.As(err, &ce) {
				err = fmt.Errorf("check %q: %s", ce.Check, ce.Msg)
			}
			errs = append(errs, fmt.Errorf("%s:%d:%d: %w", sc.File, c.Pos.Line, c.Pos.Column, err))
			continue
		}
		checks = append(checks, rc)
	}
	return checks, errs
}

// Summary completes the aggregate of the run's records with what only the
// run as a whole knows (connection-level counts, orphans, background
// faults), builds the summary and evaluates the checks.
func (info *Info) Summary(agg *report.Aggregator, checks []report.Check) *report.Summary {
	agg.SetConnection(info.Conn)
	agg.SetOrphans(info.Orphans)
	for _, b := range info.Background {
		agg.AddBackground(b.Kind, b.Sent, b.Failed)
	}
	h := info.Header
	s := agg.Summary(report.Meta{Scenario: h.Scenario, Era: h.Era, Transport: h.Transport, Target: h.Target,
		Server: h.Server, Seed: h.Seed, Started: info.Started, Duration: info.Duration, Interrupted: info.Interrupted})
	s.Evaluate(checks)
	return s
}
