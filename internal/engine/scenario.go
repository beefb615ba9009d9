package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/faults"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// FromScenario turns a decoded scenario into a Plan. self is the argv that
// runs mcpchaos itself (for a builtin stdio target: self + "serve
// --stdio" + the knobs' flags).
func FromScenario(sc *scenarios.Scenario, self []string) (Plan, error) {
	p := Plan{Name: sc.Name, File: sc.File, Seed: sc.Seed, Client: sc.Client}
	era, err := client.ParseProtocol(sc.Protocol)
	if err != nil {
		return p, err
	}
	p.Protocol = era
	if p.Target, err = planTarget(sc, self); err != nil {
		return p, err
	}
	l := sc.Load
	p.Load = Load{Rate: vegeta.Rate{Freq: l.Rate.Freq, Per: l.Rate.Per}, Concurrency: l.Concurrency,
		Duration: l.Duration.Std(), MaxInFlight: l.MaxInFlight, GracefulStop: l.GracefulStop.Std(),
		IDs: l.IDs.Mode, IDConnections: l.IDs.Connections}
	for _, s := range l.Stages {
		p.Load.Stages = append(p.Load.Stages, Stage{To: vegeta.Rate{Freq: s.To.Freq, Per: s.To.Per}, Over: s.Over.Std()})
	}
	p.Timeouts = Timeouts{Idle: sc.Timeouts.Idle.Std(), Max: sc.Timeouts.Max.Std(), Connect: sc.Timeouts.Connect.Std()}
	for _, pol := range sc.Timeouts.Policies {
		p.Timeouts.Policies = append(p.Timeouts.Policies, Policy{Name: pol.Name, Timeout: pol.Timeout.Std(),
			Idle: pol.Idle.Std(), ResetOnProgress: pol.ResetOnProgress, Max: pol.Max.Std()})
	}
	for _, c := range sc.Calls {
		args, err := json.Marshal(c.Arguments)
		if err != nil {
			return p, fmt.Errorf("%s:%d:%d: arguments of %q: %w", sc.File, c.Pos.Line, c.Pos.Column, c.Tool, err)
		}
		if c.Arguments == nil {
			args = nil
		}
		// Weights may be fractional in files; scale to integers for the mix.
		p.Calls = append(p.Calls, CallSpec{Tool: c.Tool, Weight: max(int(c.Weight*1000), 1), Arguments: args, Progress: c.Progress, Task: c.Task})
	}
	p.Progress = ProgressRules{Grace: sc.Progress.Grace.Std(), FloodHz: sc.Progress.FloodHz, Stall: sc.Progress.Stall.Std()}
	if g := sc.Gateway; g != nil {
		p.Gateway = &GatewayPlan{Truth: g.Truth}
	}
	if p.Throttle, err = planThrottle(sc.Throttling); err != nil {
		return p, err
	}
	if p.Faults, err = Faults(sc); err != nil {
		return p, err
	}
	p.Orphans = Orphans{Grace: sc.Orphans.Grace.Std(), DrainMax: sc.Orphans.DrainMax.Std(), SampleEvery: sc.Orphans.SampleEvery.Std()}
	if w := sc.Orphans.Windows; w != nil {
		if total := p.Load.Total(); w.Every.Std() >= total {
			return p, fmt.Errorf("%s:%d:%d: orphans.windows.every %s leaves no room for a quiet window in a load of %s",
				sc.File, w.Pos.Line, w.Pos.Column, w.Every.Std(), total)
		}
		p.Orphans.Windows = &Windows{Every: w.Every.Std(), For: w.For.Std()}
	}
	for _, pb := range sc.Orphans.Probes {
		switch {
		case pb.Metric != nil:
			p.Orphans.Probes = append(p.Orphans.Probes, ProbeSpec{Name: pb.Name, Metric: &MetricProbe{URL: pb.Metric.URL, Name: pb.Metric.Name, Labels: pb.Metric.Labels}})
		case pb.Process != nil:
			p.Orphans.Probes = append(p.Orphans.Probes, ProbeSpec{Name: pb.Name, Process: &ProcessProbe{PID: pb.Process.PID}})
		case pb.Tool != nil:
			args, err := json.Marshal(pb.Tool.Arguments)
			if err != nil || pb.Tool.Arguments == nil {
				args = nil
			}
			p.Orphans.Probes = append(p.Orphans.Probes, ProbeSpec{Name: pb.Name, Tool: &ToolProbe{Name: pb.Tool.Name, Arguments: args, Pointer: pb.Tool.Pointer}})
		case pb.Log != nil:
			p.Orphans.Probes = append(p.Orphans.Probes, ProbeSpec{Name: pb.Name, Log: &LogProbe{File: pb.Log.File, Stderr: pb.Log.Stderr, Done: pb.Log.Done}})
		}
	}
	p.Config = sc.Echo() // header and env values masked: see docs/secrets.md
	return p, nil
}

func planTarget(sc *scenarios.Scenario, self []string) (Target, error) {
	t := sc.Target
	switch {
	case t.Builtin != nil:
		cfg := BuiltinConfig(sc.Seed, t.Builtin)
		if err := cfg.Validate(); err != nil { // the decoder checked every knob: only code that built sc by hand gets here
			return Target{}, fmt.Errorf("%s:%d:%d: builtin target: %w", sc.File, t.Pos.Line, t.Pos.Column, err)
		}
		if t.Builtin.Transport == scenarios.TransportStdio {
			cmd := append(append(append([]string(nil), self...), "serve", "--stdio"), cfg.Args()...)
			return Target{Builtin: &Builtin{Transport: "stdio", Command: cmd}}, nil
		}
		return Target{Builtin: &Builtin{Transport: "http", Start: func() (string, string, func(), error) {
			r, err := targetserver.StartHTTP(context.Background(), cfg, "")
			if err != nil {
				return "", "", nil, err
			}
			return r.URL, r.MetricsURL, func() { _ = r.Close() }, nil
		}}}, nil
	case t.Stdio != nil:
		keys := make([]string, 0, len(t.Stdio.Env))
		for k := range t.Stdio.Env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		env := make([]string, 0, len(keys))
		for _, k := range keys {
			env = append(env, k+"="+t.Stdio.Env[k])
		}
		return Target{Stdio: &StdioTarget{StdioConfig: client.StdioConfig{Command: t.Stdio.Command, Env: env, Dir: t.Stdio.Dir},
			Processes: t.Stdio.Processes}}, nil
	case t.HTTP != nil:
		hc := &client.HTTPConfig{URL: t.HTTP.URL, Header: t.HTTP.Headers, Transport: t.HTTP.Transport, HTTP2: t.HTTP.HTTP2}
		if o := t.HTTP.TLS; o != nil {
			hc.TLS = &client.TLSOptions{CAFile: o.CAFile, CertFile: o.CertFile, KeyFile: o.KeyFile,
				ServerName: o.ServerName, InsecureSkipVerify: o.InsecureSkipVerify}
		}
		return Target{HTTP: hc, PID: t.HTTP.PID}, nil
	}
	return Target{}, fmt.Errorf("%s: no target", sc.File)
}

// BuiltinConfig returns the target's config for a scenario's builtin
// target: its knobs, drawing from the scenario's seed.
func BuiltinConfig(seed int64, b *scenarios.BuiltinTarget) targetserver.Config {
	cfg := b.Config
	cfg.Seed = seed
	return cfg
}

func planThrottle(t scenarios.Throttling) (ThrottleRules, error) {
	var r ThrottleRules
	for _, c := range t.RPCCodes {
		r.RPCCodes = append(r.RPCCodes, int64(c))
	}
	if t.Retry != nil {
		r.Retries, r.HonorRetryAfter = t.Retry.Max, t.Retry.HonorRetryAfter
	}
	var err error
	if t.Message != "" {
		if r.Message, err = regexp.Compile(t.Message); err != nil {
			return r, fmt.Errorf("throttling.message: %w", err)
		}
	}
	if t.ToolMessage != "" {
		if r.ToolMessage, err = regexp.Compile(t.ToolMessage); err != nil {
			return r, fmt.Errorf("throttling.tool_message: %w", err)
		}
	}
	return r, nil
}

// Faults builds the scenario's faults, each kind checking its own keys.
// Every problem is reported, as scenarios.Errors in file order.
func Faults(sc *scenarios.Scenario) ([]faults.Fault, error) {
	var out []faults.Fault
	var errs scenarios.Errors
	for _, f := range sc.Faults {
		ff, err := faults.New(f, sc.Target.Transport())
		var list scenarios.Errors
		switch {
		case errors.As(err, &list):
			errs = append(errs, list...)
		case err != nil:
			errs = append(errs, &scenarios.Error{File: sc.File, Pos: f.Pos, Msg: err.Error()})
		default:
			out = append(out, ff)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}
