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

	"github.com/spf13/pflag"

	"github.com/mcpchaos/mcpchaos/engine"
	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
	"github.com/mcpchaos/mcpchaos/scenarios"
)

// runFlags are the command line of `mcpchaos run`.
type runFlags struct {
	output   string
	exports  exportFlags
	rate     scenarios.Rate
	duration scenarios.Duration
	seed     int64
	quiet    bool
	// noFailOnViolation: a violation verdict does not fail the run.
	noFailOnViolation bool
	// noSchemaCheck: the calls are sent without checking them against
	// the server's tools/list first.
	noSchemaCheck bool
	// leaveChildren: processes the stdio servers left running are not
	// killed at the end.
	leaveChildren bool
	// shards: a run split over several processes (shard.go).
	shards shardFlags
	// metricsListen: serve live Prometheus metrics there (livemetrics).
	metricsListen string
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
	fs.StringVarP(&f.output, "output", "o", "", "write one JSON line per call to `FILE` (.gz compresses; - for standard output)")
	f.exports.defineRunFlags(fs)
	fs.Var(&f.rate, "rate", "override the load with a constant `RATE` (N/duration, e.g. 200/1s)")
	fs.Var(&f.duration, "duration", "override the load's `DURATION`")
	fs.Int64Var(&f.seed, "seed", 0, "override the scenario's `SEED`")
	fs.BoolVarP(&f.quiet, "quiet", "q", false, "no live status line")
	fs.BoolVar(&f.noFailOnViolation, "no-fail-on-violation", false, "a violation verdict does not fail the run (the scenario's fail_on_violation: false)")
	fs.BoolVar(&f.noSchemaCheck, "no-schema-check", false, "do not check the scenario's tools and arguments against the server's tools/list before the load")
	fs.BoolVar(&f.leaveChildren, "leave-children", false, "leave running the processes stdio servers left behind (default: kill them at the end)")
	f.shards.define(fs)
	fs.StringVar(&f.metricsListen, "metrics-listen", "", "serve live Prometheus metrics of the run on /metrics at `ADDR` (e.g. 127.0.0.1:9090)")
	fs.Lookup("duration").DefValue = "" // no default: the scenario's
	return fs, f
}

func runCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, f := newRunFlags(stdout)
	if code, ok := parseScenarioFlags(fs, "run", args, stderr); !ok {
		return code
	}
	prep, err := prepareRun(fs, f, fs.Arg(0))
	if err != nil {
		printProblems(stderr, "mcpchaos run: ", fs.Arg(0), err)
		return 2
	}
	sc, checks, plan := prep.Scenario, prep.Checks, prep.Plan
	shard, startAt, err := f.shards.resolve(fs, os.LookupEnv)
	if err == nil {
		plan, err = plan.ForShard(shard)
	}
	if err != nil {
		fmt.Fprintf(stderr, "mcpchaos run: %v\n", err)
		return 2
	}
	plan.StartAt = startAt
	if note := plan.SharedProbesNote(); note != "" {
		fmt.Fprintf(stderr, "mcpchaos run: %s\n", note)
	}
	if !checkScenarioRun(ctx, "run", fs.Arg(0), sc, f.output, &f.exports, stderr) {
		return 2
	}
	failOnViolation := sc.FailOnViolation && !f.noFailOnViolation
	// Every output is opened before the load: a path that cannot be
	// created fails here, before any call.
	outs := newOutputs(ctx, stdout)
	w, exp, err := openRunOutputs(outs, f, sc.Name)
	if err != nil {
		outs.abort()
		fmt.Fprintf(stderr, "mcpchaos run: %v\n", err)
		return 2
	}
	agg := report.NewAggregator(report.ScenarioRules(sc))
	// Only the HTML plots and the hlog use the run second by second, the
	// one part of the aggregate that grows with a run's length.
	agg.KeepSeconds(exp.html != nil || exp.hlog != nil)
	var exportErr error
	sink := func(r *results.Record) {
		agg.Add(r)
		if err := exp.record(r); err != nil && exportErr == nil {
			exportErr = err
		}
	}
	status := newStatusLine(stderr, f.quiet, agg)
	shortSlices()
	if exp.html != nil {
		exp.html.scenario = plan.Config
	}
	plan.Orphans.LeaveChildren = f.leaveChildren
	opts := engine.Options{Sink: sink, Writer: w, Tick: status.tick, Version: version, OnSample: exp.sample,
		Evaluation: report.Evaluation(report.ScenarioRules(sc), checks, failOnViolation), Subreaper: subreaper}
	if !f.noSchemaCheck {
		opts.BeforeLoad = checkTools(sc, stderr)
	}
	opts.OnLateStart = lateStart(stderr, shard, startAt)
	if f.metricsListen != "" {
		stop, err := serveLive(ctx, &opts, f.metricsListen, sc.Name, shard, stderr)
		if err != nil {
			status.clear()
			if w != nil {
				_ = w.Close()
			}
			outs.abort()
			fmt.Fprintf(stderr, "mcpchaos run: %v\n", err)
			return 2
		}
		defer stop()
	}
	info, err := engine.Run(ctx, plan, opts)
	if err != nil {
		status.clear()
		if w != nil {
			_ = w.Close()
		}
		outs.abort()
		if list := (scenarios.Errors{}); errors.As(err, &list) {
			printProblems(stderr, "mcpchaos run: ", fs.Arg(0), list) // the tools check
			fmt.Fprintf(stderr, "mcpchaos run: %s\n", noSchemaCheckHint)
			return 2
		}
		fmt.Fprintf(stderr, "mcpchaos run: %v\n", err)
		return 2
	}
	status.writing()
	summary := info.Summary(agg, checks, failOnViolation)
	code := 0
	switch {
	case info.Interrupted:
		code = exitInterrupted
	case !summary.Pass:
		code = failCode(summary)
	}
	if w != nil {
		raw, _ := json.Marshal(summary)
		inputs, err := report.EncodeInputs(info.Inputs())
		if err != nil {
			fmt.Fprintf(stderr, "mcpchaos run: %v\n", err)
		}
		_ = w.Write(&results.Trailer{Type: results.TypeTrailer, Ended: time.Now(), Interrupted: info.Interrupted, Summary: raw, Run: inputs})
		if err := w.Close(); err != nil {
			fmt.Fprintf(stderr, "mcpchaos run: %v\n", err)
			code = 2
		}
	}
	status.clear()
	text := stdout
	if outs.toStdout != "" {
		text = stderr // standard output carries another output
	}
	if err := summary.Text(text); err != nil {
		fmt.Fprintf(stderr, "mcpchaos run: %v\n", err)
	}
	for i, tail := range info.Stderr {
		if info.Interrupted || code != 0 {
			fmt.Fprintf(stderr, "--- server %d stderr (last %d bytes) ---\n%s\n", i+1, len(tail), tail)
		}
	}
	if err := errors.Join(exportErr, exp.write(summary, agg), outs.closeAll()); err != nil {
		fmt.Fprintf(stderr, "mcpchaos run: %v\n", err)
		return 2
	}
	return code
}

// openRunOutputs opens the results file (nil without --output) and every
// rendering run writes.
func openRunOutputs(outs *outputs, f *runFlags, name string) (*results.Writer, *exports, error) {
	var w *results.Writer
	if f.output != "" {
		// Raw: the writer redacts each line itself, before compressing.
		out, err := outs.open("--output", f.output, rawOutput)
		if err != nil {
			return nil, nil, err
		}
		w = results.NewWriter(out, strings.HasSuffix(f.output, ".gz"), 0)
		w.Redact(outs.secrets.JSON)
	}
	exp, err := openExports(outs, &f.exports, name)
	if err != nil {
		if w != nil {
			_ = w.Close()
		}
		return nil, nil, err
	}
	return w, exp, nil
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
