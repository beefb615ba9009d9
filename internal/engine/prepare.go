package engine

import (
	"errors"
	"fmt"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/faults"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/report"
)

// Overrides are the command-line values that replace a scenario's own
// (mcpchaos run --rate, --duration, --seed); nil leaves a value alone.
type Overrides struct {
	Rate     *scenarios.Rate
	Duration *time.Duration
	Seed     *int64
}

// Prepared is a scenario that passed every static check, with what running
// it needs.
type Prepared struct {
	Scenario *scenarios.Scenario
	Checks   []report.Check
	Plan     Plan
}

// Prepare does all the static checking of the scenario file at path, the
// same for every command that reads scenarios (validate, run, and later
// report and proxy), so that they accept exactly the same files: strict
// decoding with defaults, environment references, knob ranges and URLs
// (scenarios.Load), the overrides, the plan (FromScenario: faults through
// faults.New, throttling patterns, the built-in target's config), the
// probes' names, and the checks' keys with the names in them: fault kinds,
// probes, throttling kinds, policies (report.ScenarioChecks). Nothing is
// started and nothing is sent.
//
// self is the argv that runs mcpchaos itself (see FromScenario). Every error
// names FILE:LINE:COLUMN of the field at fault, except an override's, which
// names the flag; several problems come as scenarios.Errors (from decoding)
// or errors.Join (the checks).
func Prepare(path string, o Overrides, self []string) (*Prepared, error) {
	sc, err := scenarios.Load(path)
	if err != nil {
		return nil, err
	}
	if err := sc.Override(o.Rate, o.Duration, o.Seed); err != nil {
		return nil, err
	}
	plan, err := FromScenario(sc, self)
	if err != nil {
		return nil, err
	}
	if err := ownProbeNames(sc, plan); err != nil {
		return nil, err
	}
	// A check may name only what exists: a fault kind, a probe of this run,
	// a throttling kind, a timeout policy (report.ScenarioChecks).
	checks, errs := report.ScenarioChecks(sc, report.Names{FaultKinds: faults.Kinds(), Probes: plan.ProbeNames()})
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &Prepared{Scenario: sc, Checks: checks, Plan: plan}, nil
}

// ownProbeNames reports a scenario probe that has the name of a probe the
// engine adds itself (scenarios already reports two scenario probes with
// one name).
func ownProbeNames(sc *scenarios.Scenario, plan Plan) error {
	if plan.Target.Builtin == nil {
		return nil
	}
	var errs scenarios.Errors
	for i, p := range sc.Orphans.Probes {
		if p.Name == BuiltinProbe {
			errs = append(errs, &scenarios.Error{File: sc.File, Pos: p.Pos,
				Msg: fmt.Sprintf("orphans.probes[%d]: probe name %q is taken by the built-in target's own probe; choose another name", i, p.Name)})
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}
