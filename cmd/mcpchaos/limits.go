package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/engine"
	"github.com/mcpchaos/mcpchaos/internal/engine/limits"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/report"
	reporttext "github.com/mcpchaos/mcpchaos/report/text"
	"github.com/mcpchaos/mcpchaos/results"
	"github.com/spf13/pflag"
)

// limitsFlags are the command line of `mcpchaos limits`.
type limitsFlags struct {
	output        string
	exports       exportFlags
	maxRate       scenarios.Rate
	budget        scenarios.Duration
	seed          int64
	quiet         bool
	noSchemaCheck bool
}

// Defaults of `mcpchaos limits`.
var (
	defaultMaxRate = scenarios.Rate{Freq: 1000, Per: time.Second}
	defaultBudget  = scenarios.Duration(60 * time.Second)
)

func newLimitsFlags(stdout io.Writer) (*pflag.FlagSet, *limitsFlags) {
	f := &limitsFlags{maxRate: defaultMaxRate, budget: defaultBudget}
	fs := newFlagSet("limits", stdout,
		"usage: mcpchaos limits SCENARIO.yaml [flags]",
		"",
		"Searches for the target's rate limit and its shape with the scenario's target, calls,",
		"timeouts and throttling rules (its load and faults are not used), and prints a limit card:",
		"signal, rate, burst, window, Retry-After honesty, tools, overload, lock-out, whether",
		"tools/list and initialize count, with identities: whether each has its own limit, and with",
		"checks the capacity. Exit status: 0 the limits.* checks pass (verdicts never fail a search); 1 one failed;",
		"2 bad input or the search could not start; 130 interrupted (what was found so far is",
		"still printed).",
		"")
	fs.Var(&f.maxRate, "max-rate", "never offer more than `RATE` (N/duration)")
	fs.Var(&f.budget, "budget", "bound the whole search to `DURATION`")
	fs.StringVarP(&f.output, "output", "o", "", "write one JSON line per call, with its phase, to `FILE` (.gz compresses; - for standard output)")
	fs.StringVar(&f.exports.summaryJSON, "summary-json", "", "write the JSON summary, with its limits member, to `FILE` (- for standard output)")
	fs.StringVar(&f.exports.junit, "junit", "", "write the checks and verdicts as JUnit XML to `FILE`")
	fs.StringVar(&f.exports.html, "html", "", "write the HTML report of the search's calls to `FILE`")
	fs.Int64Var(&f.seed, "seed", 0, "override the scenario's `SEED`")
	fs.BoolVarP(&f.quiet, "quiet", "q", false, "no live status line")
	fs.BoolVar(&f.noSchemaCheck, "no-schema-check", false, "do not check the scenario's tools and arguments against the server's tools/list first")
	return fs, f
}

func limitsCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, f := newLimitsFlags(stdout)
	if code, ok := parseScenarioFlags(fs, "limits", args, stderr); !ok {
		return code
	}
	if f.maxRate.PerSecond() <= 0 || f.budget <= 0 {
		fmt.Fprintf(stderr, "mcpchaos limits: --max-rate %q and --budget %q must both be above zero\n", f.maxRate, f.budget)
		return exitUsage
	}
	var o engine.Overrides
	if fs.Changed("seed") {
		o.Seed = &f.seed
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "mcpchaos limits: find the mcpchaos executable: %v\n", err)
		return exitUsage
	}
	prep, err := engine.Prepare(fs.Arg(0), o, []string{self})
	if err != nil {
		printProblems(stderr, "mcpchaos limits: ", fs.Arg(0), err)
		return exitUsage
	}
	if !checkScenarioRun(ctx, "limits", fs.Arg(0), prep.Scenario, f.output, &f.exports, stderr) {
		return exitUsage
	}
	return searchLimits(ctx, f, prep, stdout, stderr)
}

// splitChecks separates the checks on the limits.* keys, which judge the
// search, from the others, which define the capacity.
func splitChecks(checks []report.Check) (onLimits, others []report.Check) {
	for _, c := range checks {
		if strings.HasPrefix(c.Key, "limits.") {
			onLimits = append(onLimits, c)
		} else {
			others = append(others, c)
		}
	}
	return onLimits, others
}

// limitsPlan is the scenario's plan with the search as its load: no
// faults, no retries.
func limitsPlan(plan engine.Plan, s *limits.Search) engine.Plan {
	plan.Load = engine.Load{IDs: plan.Load.IDs, IDConnections: plan.Load.IDConnections, Script: s.Script(),
		Duration: s.Budget(), GracefulStop: 5 * time.Second}
	plan.Faults = nil
	plan.Throttle.Retries = 0
	return plan
}

// searchLimits runs the search and writes its outputs.
func searchLimits(ctx context.Context, f *limitsFlags, prep *engine.Prepared, stdout, stderr io.Writer) int {
	sc := prep.Scenario
	onLimits, others := splitChecks(prep.Checks)
	rules := report.ScenarioRules(sc)
	search := limits.New(limits.Options{MaxRate: f.maxRate.PerSecond(), Budget: f.budget.Std(), Checks: others, Rules: rules})
	plan := limitsPlan(prep.Plan, search)
	outs := newOutputs(ctx, stdout)
	w, exp, err := openRunOutputs(outs, &runFlags{output: f.output, exports: f.exports}, sc.Name)
	if err != nil {
		outs.abort()
		return fail(stderr, "limits", err)
	}
	agg := report.NewAggregator(rules)
	status := newStatusLine(stderr, f.quiet, agg)
	opts := engine.Options{Sink: agg.Add, Writer: w, Tick: status.tick, Version: version, OnSample: exp.sample,
		Evaluation: report.Evaluation(rules, onLimits, false)}
	if !f.noSchemaCheck {
		opts.BeforeLoad = checkTools(sc, stderr)
	}
	info, err := engine.Run(ctx, plan, opts)
	if err != nil {
		status.clear()
		if w != nil {
			_ = w.Close()
		}
		outs.abort()
		if list := (scenarios.Errors{}); errors.As(err, &list) {
			printProblems(stderr, "mcpchaos limits: ", sc.File, list) // the tools check
			fmt.Fprintf(stderr, "mcpchaos limits: %s\n", noSchemaCheckHint)
			return exitUsage
		}
		return fail(stderr, "limits", err)
	}
	status.writing()
	agg.SetInputs(info.Inputs())
	summary := agg.Summary(info.Meta())
	summary.Limits = search.Result()
	// Only the limits.* checks judge a search (docs/decisions.md): its
	// verdicts are shown, never failing it.
	summary.Evaluate(onLimits, false)
	code := exitOK
	switch {
	case info.Interrupted:
		code = exitInterrupted
	case !summary.Pass:
		code = failCode(summary)
	}
	if err := writeTrailer(w, info, summary); err != nil {
		fmt.Fprintf(stderr, "mcpchaos limits: %v\n", err)
		code = exitUsage
	}
	status.clear()
	summaryOut := stdout
	if outs.toStdout != "" {
		summaryOut = stderr
	}
	if err := reporttext.Write(summaryOut, summary); err != nil {
		fmt.Fprintf(stderr, "mcpchaos limits: %v\n", err)
	}
	if err := errors.Join(exp.write(summary, agg), outs.closeAll()); err != nil {
		return fail(stderr, "limits", err)
	}
	return code
}

// writeTrailer ends a results file (nil: none) with the summary.
func writeTrailer(w *results.Writer, info *engine.Info, summary *report.Summary) error {
	if w == nil {
		return nil
	}
	raw, _ := json.Marshal(summary)
	inputs, err := report.EncodeInputs(info.Inputs())
	_ = w.Write(&results.Trailer{Type: results.TypeTrailer, Ended: time.Now(), Interrupted: info.Interrupted, Summary: raw, Run: inputs})
	return errors.Join(err, w.Close())
}
