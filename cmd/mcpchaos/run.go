package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcpchaos/mcpchaos/engine"
	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
	"github.com/mcpchaos/mcpchaos/scenarios"
)

// runFlags are the command line of `mcpchaos run`.
type runFlags struct {
	output      string
	summaryJSON string
	rate        scenarios.Rate
	duration    scenarios.Duration
	seed        int64
	quiet       bool
	// noFailOnViolation: a violation verdict does not fail the run.
	noFailOnViolation bool
	// leaveChildren: processes the stdio servers left running are not
	// killed at the end.
	leaveChildren bool
}

func newRunFlags(stdout io.Writer) (*pflag.FlagSet, *runFlags) {
	f := &runFlags{}
	fs := newFlagSet("run", stdout,
		"usage: mcpchaos run SCENARIO.yaml [flags]",
		"",
		"Drives the scenario's load and faults at its target and prints the summary.",
		"Exit status: 0 pass; 1 a check failed or a verdict is a violation; 2 bad input or the",
		"run could not start; 130 interrupted (after draining and writing every output).",
		"")
	fs.StringVarP(&f.output, "output", "o", "", "write one JSON line per call to `FILE` (.gz compresses)")
	fs.StringVar(&f.summaryJSON, "summary-json", "", "write the JSON summary to `FILE`")
	fs.Var(&f.rate, "rate", "override the load with a constant `RATE` (N/duration, e.g. 200/1s)")
	fs.Var(&f.duration, "duration", "override the load's `DURATION`")
	fs.Int64Var(&f.seed, "seed", 0, "override the scenario's `SEED`")
	fs.BoolVarP(&f.quiet, "quiet", "q", false, "no live status line")
	fs.BoolVar(&f.noFailOnViolation, "no-fail-on-violation", false, "a violation verdict does not fail the run (the scenario's fail_on_violation: false)")
	fs.BoolVar(&f.leaveChildren, "leave-children", false, "leave running the processes stdio servers left behind (default: kill them at the end)")
	fs.Lookup("duration").DefValue = "" // no default: the scenario's
	return fs, f
}

func runCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, f := newRunFlags(stdout)
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "mcpchaos run: want exactly one scenario file (see mcpchaos run --help)")
		return 2
	}
	prep, err := prepareRun(fs, f, fs.Arg(0))
	if err != nil {
		printProblems(stderr, "mcpchaos run: ", fs.Arg(0), err)
		return 2
	}
	sc, checks, plan := prep.Scenario, prep.Checks, prep.Plan
	var w *results.Writer
	if f.output != "" {
		if w, err = results.Create(f.output, 0); err != nil {
			fmt.Fprintf(stderr, "mcpchaos run: %v\n", err)
			return 2
		}
	}
	agg := report.NewAggregator(report.ScenarioRules(sc))
	status := newStatusLine(stderr, f.quiet, agg)
	shortSlices()
	plan.Orphans.LeaveChildren = f.leaveChildren
	info, err := engine.Run(ctx, plan, engine.Options{Sink: agg.Add, Writer: w, Tick: status.tick, Version: version, Subreaper: subreaper})
	if err != nil {
		status.clear()
		if w != nil {
			_ = w.Close()
		}
		fmt.Fprintf(stderr, "mcpchaos run: %v\n", err)
		return 2
	}
	status.writing()
	summary := info.Summary(agg, checks, sc.FailOnViolation && !f.noFailOnViolation)
	code := 0
	switch {
	case info.Interrupted:
		code = exitInterrupted
	case !summary.Pass:
		code = 1
	}
	if w != nil {
		raw, _ := json.Marshal(summary)
		_ = w.Write(&results.Trailer{Type: results.TypeTrailer, Ended: time.Now(), Interrupted: info.Interrupted, Summary: raw})
		if err := w.Close(); err != nil {
			fmt.Fprintf(stderr, "mcpchaos run: %v\n", err)
			code = 2
		}
	}
	status.clear()
	if err := summary.Text(stdout); err != nil {
		fmt.Fprintf(stderr, "mcpchaos run: %v\n", err)
	}
	for i, tail := range info.Stderr {
		if info.Interrupted || code != 0 {
			fmt.Fprintf(stderr, "--- server %d stderr (last %d bytes) ---\n%s\n", i+1, len(tail), tail)
		}
	}
	if f.summaryJSON != "" {
		if err := writeSummaryJSON(f.summaryJSON, summary); err != nil {
			fmt.Fprintf(stderr, "mcpchaos run: %v\n", err)
			return 2
		}
	}
	return code
}

// prepareRun applies the flags and runs engine.Prepare, the static checks
// that validate runs too: everything that can fail before any load is sent.
func prepareRun(fs *pflag.FlagSet, f *runFlags, path string) (*engine.Prepared, error) {
	var o engine.Overrides
	if fs.Changed("rate") {
		o.Rate = &f.rate
	}
	if fs.Changed("duration") {
		d := f.duration.Std()
		o.Duration = &d
	}
	if fs.Changed("seed") {
		o.Seed = &f.seed
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find the mcpchaos executable: %w", err)
	}
	return engine.Prepare(path, o, []string{self})
}

func writeSummaryJSON(path string, s *report.Summary) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write summary: %w", err)
	}
	if err := s.JSON(f); err != nil {
		f.Close()
		return fmt.Errorf("write summary %s: %w", path, err)
	}
	return f.Close()
}
