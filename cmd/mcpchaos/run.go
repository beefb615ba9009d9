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

	"github.com/mcpchaos/mcpchaos/internal/engine"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/report"
	reporttext "github.com/mcpchaos/mcpchaos/report/text"
	"github.com/mcpchaos/mcpchaos/results"
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
	// realtime: this process at real-time priority (realtime_linux.go).
	realtime bool
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
	fs.BoolVar(&f.realtime, "realtime", false, "run at real-time priority (Linux: SCHED_FIFO 1; root or CAP_SYS_NICE), so faults and timeouts act within a millisecond of their moment beside a busy server; back to normal priority if this process uses more than a whole CPU")
	fs.Lookup("duration").DefValue = "" // no default: the scenario's
	return fs, f
}

func runCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, f := newRunFlags(stdout)
	if code, ok := parseScenarioFlags(fs, "run", args, stderr); !ok {
		return code
	}
	rp, code, ok := planRun(ctx, fs, f, stderr)
	if !ok {
		return code
	}
	// Every output is opened before the load: a path that cannot be
	// created fails here, before any call.
	outs := newOutputs(ctx, stdout)
	w, exp, err := openRunOutputs(outs, f, rp.sc.Name)
	if err != nil {
		outs.abort()
		return fail(stderr, "run", err)
	}
	r := &runOutput{w: w, exp: exp, outs: outs, agg: report.NewAggregator(report.ScenarioRules(rp.sc))}
	r.status = newStatusLine(stderr, f.quiet, r.agg)
	// Only the HTML plots and the hlog use the run second by second, the
	// one part of the aggregate that grows with a run's length.
	r.agg.KeepSeconds(exp.html != nil || exp.hlog != nil)
	shortSlices()
	if f.realtime {
		stop, ok := realtime(ctx, stderr)
		defer stop()
		r.realtime = ok
	}
	if exp.html != nil {
		exp.html.scenario = rp.plan.Config
	}
	opts := r.options(f, rp, stderr)
	if f.metricsListen != "" {
		stop, err := serveLive(ctx, &opts, f.metricsListen, rp.sc.Name, rp.shard, stderr)
		if err != nil {
			r.abort()
			return fail(stderr, "run", err)
		}
		defer stop()
	}
	stopProfile, stopTrace := memProfileLater(stderr), traceRun(stderr)
	info, err := engine.Run(ctx, rp.plan, opts)
	stopTrace()
	stopProfile()
	if err != nil {
		r.abort()
		if list := (scenarios.Errors{}); errors.As(err, &list) {
			printProblems(stderr, "mcpchaos run: ", fs.Arg(0), list) // the tools check
			fmt.Fprintf(stderr, "mcpchaos run: %s\n", noSchemaCheckHint)
			return exitUsage
		}
		return fail(stderr, "run", err)
	}
	return r.finish(info, rp, stdout, stderr)
}

// runPlan is what run drives: the checked scenario, its checks and the
// plan of this shard.
type runPlan struct {
	sc              *scenarios.Scenario
	checks          []report.Check
	plan            engine.Plan
	shard           engine.Shard
	startAt         time.Time
	failOnViolation bool
}

// planRun reads and checks the scenario named on the command line, and
// plans this shard's part of it. When ok is false run ends with code (the
// problem is on stderr).
func planRun(ctx context.Context, fs *pflag.FlagSet, f *runFlags, stderr io.Writer) (rp runPlan, code int, ok bool) {
	prep, err := prepareRun(fs, f, fs.Arg(0))
	if err != nil {
		printProblems(stderr, "mcpchaos run: ", fs.Arg(0), err)
		return rp, exitUsage, false
	}
	rp = runPlan{sc: prep.Scenario, checks: prep.Checks, plan: prep.Plan}
	rp.shard, rp.startAt, err = f.shards.resolve(fs, os.LookupEnv)
	if err == nil {
		rp.plan, err = rp.plan.ForShard(rp.shard)
	}
	if err != nil {
		return rp, fail(stderr, "run", err), false
	}
	rp.plan.StartAt = rp.startAt
	if note := rp.plan.SharedProbesNote(); note != "" {
		fmt.Fprintf(stderr, "mcpchaos run: %s\n", note)
	}
	if !checkScenarioRun(ctx, "run", fs.Arg(0), rp.sc, f.output, &f.exports, stderr) {
		return rp, exitUsage, false
	}
	rp.failOnViolation = rp.sc.FailOnViolation && !f.noFailOnViolation
	rp.plan.Orphans.LeaveChildren = f.leaveChildren
	return rp, exitOK, true
}

// runOutput is where a run's records go: the aggregator, the results file
// (nil without --output), the other renderings, the status line.
type runOutput struct {
	agg       *report.Aggregator
	w         *results.Writer
	exp       *exports
	outs      *outputs
	status    *statusLine
	exportErr error // the first error of an export, reported at the end
	realtime  bool  // --realtime took effect (realtime_linux.go)
}

// options are the engine's options for a run with these outputs.
func (r *runOutput) options(f *runFlags, rp runPlan, stderr io.Writer) engine.Options {
	sink := func(rec *results.Record) {
		r.agg.Add(rec)
		if err := r.exp.record(rec); err != nil && r.exportErr == nil {
			r.exportErr = err
		}
	}
	opts := engine.Options{Sink: sink, Writer: r.w, Tick: r.status.tick, Version: version, OnSample: r.exp.sample,
		Evaluation: report.Evaluation(report.ScenarioRules(rp.sc), rp.checks, rp.failOnViolation), Subreaper: subreaper,
		// At real-time priority a woken thread runs at once; it then needs
		// a P of its own too, so the runtime keeps its default.
		AdaptProcs: adaptProcs && !r.realtime}
	if !f.noSchemaCheck {
		opts.BeforeLoad = checkTools(rp.sc, stderr)
	}
	opts.OnLateStart = lateStart(stderr, rp.shard, rp.startAt)
	return opts
}

// abort removes the outputs of a run that could not start.
func (r *runOutput) abort() {
	r.status.clear()
	if r.w != nil {
		_ = r.w.Close()
	}
	r.outs.abort()
}

// finish writes the summary everywhere it goes once the run has ended and
// returns run's exit status.
func (r *runOutput) finish(info *engine.Info, rp runPlan, stdout, stderr io.Writer) int {
	r.status.writing()
	summary := info.Summary(r.agg, rp.checks, rp.failOnViolation)
	code := exitOK
	switch {
	case info.Interrupted:
		code = exitInterrupted
	case !summary.Pass:
		code = failCode(summary)
	}
	if r.w != nil && !r.writeTrailer(info, summary, stderr) {
		code = exitUsage
	}
	r.status.clear()
	summaryOut := stdout
	if r.outs.toStdout != "" {
		summaryOut = stderr // standard output carries another output
	}
	if err := reporttext.Write(summaryOut, summary); err != nil {
		fmt.Fprintf(stderr, "mcpchaos run: %v\n", err)
	}
	for i, tail := range info.Stderr {
		if info.Interrupted || code != exitOK {
			fmt.Fprintf(stderr, "--- server %d stderr (last %d bytes) ---\n%s\n", i+1, len(tail), tail)
		}
	}
	if err := errors.Join(r.exportErr, r.exp.write(summary, r.agg), r.outs.closeAll()); err != nil {
		return fail(stderr, "run", err)
	}
	return code
}

// writeTrailer ends the results file with the summary and the run's
// inputs, and closes it; false when it could not be written.
func (r *runOutput) writeTrailer(info *engine.Info, summary *report.Summary, stderr io.Writer) bool {
	raw, _ := json.Marshal(summary)
	inputs, err := report.EncodeInputs(info.Inputs())
	if err != nil {
		fmt.Fprintf(stderr, "mcpchaos run: %v\n", err)
	}
	_ = r.w.Write(&results.Trailer{Type: results.TypeTrailer, Ended: time.Now(), Interrupted: info.Interrupted, Summary: raw, Run: inputs})
	if err := r.w.Close(); err != nil {
		fmt.Fprintf(stderr, "mcpchaos run: %v\n", err)
		return false
	}
	return true
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
