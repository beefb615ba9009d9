package scenarios

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/targetserver/knobs"
)

func mustParse(t *testing.T, name, src string) *Scenario {
	t.Helper()
	s, err := parse(name, []byte(src), testEnv)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return s
}

func sec(n float64) Duration { return Duration(n * float64(time.Second)) }

// at is the position of a line and column in testdata/full.yaml.
func at(line, col int) Pos { return Pos{line, col} }

// distPtr is a pointer to a copy of v.
func distPtr(v Dist) *Dist { return &v }

// TestFullExample loads testdata/full.yaml, which sets every key, and compares
// the scenario with fullExample field by field; then it checks that the
// scenario survives a JSON round trip.
func TestFullExample(t *testing.T) {
	s, err := Load("testdata/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := fullExample()
	// Each fault kind's own keys are package faults' to decode (see its
	// tests); here they are only kept, as written.
	params := `{"also_notify":true}{"mode":"rst"}{"at":"response"}{"before_end":"50ms"}{"for":"3s"}` +
		`{"mode":"oversize","size":"2MiB"}{"mode":"json"}{"max":2}{"rate":"100/1s"}{"rate":"5/s"}{}`
	var got string
	for i := range s.Faults {
		b, err := json.Marshal(s.Faults[i].Params)
		if err != nil {
			t.Fatal(err)
		}
		got += string(b)
		s.Faults[i].Params = Params{}
	}
	if got != params {
		t.Errorf("faults' own keys:\n got %s\nwant %s", got, params)
	}
	if !reflect.DeepEqual(s, want) {
		g, _ := json.MarshalIndent(s, "", "  ")
		w, _ := json.MarshalIndent(want, "", "  ")
		t.Fatalf("full example:\n got %s\nwant %s", g, w)
	}

	checkJSONRoundTrip(t, s)
}

// fullExample is the scenario testdata/full.yaml describes, its faults' own
// keys left out.
func fullExample() *Scenario {
	return &Scenario{
		File:     "testdata/full.yaml",
		Name:     "cancel-storm",
		Seed:     42,
		Protocol: Protocol20260728,
		Target: Target{Pos: at(5, 1), Builtin: &BuiltinTarget{
			Transport: "http", Config: knobs.Config{Era: "dual", Seed: 42, LeakOnCancel: 0.2, StopDelay: 500 * time.Millisecond,
				NoPropagateCancel: true, ProgressFloodHz: 5, StallAfter: 3, Endless: false,
				NonMonotonic: 0.1, ProgressAfterResponse: true, RateLimit: Rate{Freq: 100, Per: time.Second},
				RateLimitCode: -32000, ExitDelay: time.Second},
		}},
		Load: Workload{
			Rate: Rate{Freq: 10, Per: time.Second},
			Stages: []Stage{
				{To: Rate{Freq: 300, Per: time.Second}, Over: sec(60), Pos: at(23, 7)},
				{To: Rate{Freq: 50, Per: time.Second}, Over: sec(30), Pos: at(24, 7)},
			},
			Duration: sec(30), MaxInFlight: 1000, GracefulStop: sec(10),
		},
		Timeouts: Timeouts{Idle: sec(5), Max: sec(30), Connect: sec(5), Policies: []Policy{
			{Name: "fixed-60s", Timeout: sec(60), Pos: at(32, 7)},
			{Name: "reset-no-cap", Idle: sec(60), ResetOnProgress: true, Pos: at(33, 7)},
			{Name: "reset-with-cap", Idle: sec(60), ResetOnProgress: true, Max: sec(30), Pos: at(34, 7)},
		}},
		Calls: []Call{
			{Tool: "slow_task", Weight: 3, Arguments: map[string]any{"steps": int64(20), "step_ms": int64(100)}, Progress: true, Pos: at(36, 5)},
			{Tool: "echo", Weight: 1, Arguments: map[string]any{
				"text":   "hi",
				"nested": map[string]any{"list": []any{int64(1), 2.5, "x", true, nil}},
			}, Progress: false, Pos: at(37, 5)},
		},
		Faults: fullExampleFaults(),
		Orphans: Orphans{Grace: sec(3), DrainMax: sec(10), SampleEvery: sec(0.25), Probes: []Probe{
			{Name: "metric_mcp_inflight_calls", Metric: &MetricProbe{URL: "http://127.0.0.1:9464/metrics", Name: "mcp_inflight_calls", Labels: map[string]string{"job": "target"}}, Pos: at(59, 7)},
			{Name: "server_cpu", Process: &ProcessProbe{PID: 1234}, Pos: at(60, 7)},
			{Name: "tool_inflight", Tool: &ToolProbe{Name: "inflight", Arguments: map[string]any{}, Pointer: "/inflight"}, Pos: at(61, 7)},
		}},
		Progress: Progress{Grace: sec(0.2), FloodHz: 20, Stall: sec(5)},
		Throttling: Throttling{
			RPCCodes: []int{-32000, 429}, Message: "(?i)slow down", ToolMessage: "(?i)quota",
			Retry: &Retry{HonorRetryAfter: false, Max: 5},
		},
		Checks: fullExampleChecks(),
	}
}

// fullExampleFaults are the faults of testdata/full.yaml, in file order.
func fullExampleFaults() []Fault {
	return []Fault{
		{Kind: "cancel", Pos: at(43, 5), Probability: 0.3, After: distPtr(Dist{Kind: DistUniform, Low: 200 * time.Millisecond, High: 1500 * time.Millisecond})},
		{Kind: "disconnect", Pos: at(44, 5), Probability: 0.05, After: distPtr(Dist{Value: time.Second}), Tools: []string{"slow_*"}},
		{Kind: "cancel_race", Pos: at(45, 5), Probability: 1},
		{Kind: "cancel_race", Pos: at(46, 5), Probability: 0.1},
		{Kind: "stall_read", Pos: at(47, 5), Probability: 1, AfterProgress: 2},
		{Kind: "malformed", Pos: at(48, 5), Probability: 0.01},
		{Kind: "malformed", Pos: at(49, 5), Probability: 1},
		{Kind: "reissue", Pos: at(50, 5), Probability: 1},
		{Kind: "notify_flood", Pos: at(51, 5), Probability: 1},
		{Kind: "cancel_unknown", Pos: at(52, 5), Probability: 1},
		{Kind: "cancel", Pos: at(53, 5), Probability: 1, After: distPtr(Dist{Kind: DistExp, Mean: 500 * time.Millisecond})},
	}
}

// fullExampleChecks are the checks of testdata/full.yaml, in file order.
func fullExampleChecks() []Check {
	return []Check{
		{Raw: "cancellation.orphaned == 0", Expr: "cancellation.orphaned", Key: "cancellation.orphaned", Op: "==", Value: 0, Pos: at(72, 5)},
		{Raw: "progress.violations.total == 0", Expr: "progress.violations.total", Key: "progress.violations.total", Op: "==", Value: 0, Pos: at(73, 5)},
		{Raw: "p99(call) < 3s", Expr: "p99(call)", Func: "p", Percentile: 99, Hist: "call", Op: "<", Value: 3000, Unit: "ms", Pos: at(74, 5)},
		{Raw: "p99.9(service) <= 1500", Expr: "p99.9(service)", Func: "p", Percentile: 99.9, Hist: "service", Op: "<=", Value: 1500, Pos: at(75, 5)},
		{Raw: "p999(first_progress) != -1.5", Expr: "p999(first_progress)", Func: "p", Percentile: 99.9, Hist: "first_progress", Op: "!=", Value: -1.5, Pos: at(76, 5)},
		{Raw: "throttling.onset_rate >= 0", Expr: "throttling.onset_rate", Key: "throttling.onset_rate", Op: ">=", Value: 0, Pos: at(77, 5)},
	}
}

// checkJSONRoundTrip checks that every custom type of s marshals as text
// and reads back to the same scenario.
func checkJSONRoundTrip(t *testing.T, s *Scenario) {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Scenario
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("unmarshal: %v\n%s", err, b)
	}
	// JSON numbers come back as float64.
	for i := range back.Calls {
		back.Calls[i].Arguments = s.Calls[i].Arguments
	}
	if !reflect.DeepEqual(&back, s) {
		t.Errorf("JSON round trip changed the scenario:\n%s", b)
	}
}

func TestDefaults(t *testing.T) {
	s := mustParse(t, "dir/minimal.scenario.yaml", lines(
		"target:",
		"  builtin:",
		"load: {rate: 5/s, duration: 10s}",
		"calls: [{tool: echo}]",
		"faults:",
		"  - {kind: cancel, after: 1s}",
		"  - {kind: disconnect, after_progress: 1}",
		"  - {kind: malformed, mode: oversize}",
		"  - {kind: reissue}",
		"orphans: {probes: [{process: {}}]}",
	))
	want := &Scenario{
		File:     "dir/minimal.scenario.yaml",
		Name:     "minimal.scenario",
		Seed:     1,
		Protocol: ProtocolAuto,
		Target:   Target{Pos: Pos{1, 1}, Builtin: &BuiltinTarget{Transport: "http", Config: knobs.Config{Era: "dual", Seed: 1}}},
		Load:     Workload{Rate: Rate{Freq: 5, Per: time.Second}, Duration: sec(10), MaxInFlight: 10000, GracefulStop: sec(30)},
		Timeouts: Timeouts{Idle: sec(30), Max: sec(60), Connect: sec(5), Policies: DefaultPolicies()},
		Calls:    []Call{{Tool: "echo", Weight: 1, Progress: true, Pos: Pos{4, 9}}},
		Faults: []Fault{
			{Kind: "cancel", Pos: Pos{6, 5}, Probability: 1, After: &Dist{Value: time.Second}},
			{Kind: "disconnect", Pos: Pos{7, 5}, Probability: 1, AfterProgress: 1},
			{Kind: "malformed", Pos: Pos{8, 5}, Probability: 1},
			{Kind: "reissue", Pos: Pos{9, 5}, Probability: 1},
		},
		Orphans:         Orphans{Grace: sec(2), DrainMax: sec(30), SampleEvery: sec(0.1), Probes: []Probe{{Name: "process", Process: &ProcessProbe{}, Pos: Pos{10, 20}}}},
		Progress:        Progress{Grace: sec(0.1), FloodHz: 50, Stall: sec(2)},
		Throttling:      Throttling{Message: DefaultThrottleMessage, ToolMessage: DefaultThrottleMessage},
		FailOnViolation: true,
	}
	for i := range s.Faults {
		s.Faults[i].Params = Params{} // package faults' (see its tests)
	}
	if !reflect.DeepEqual(s, want) {
		g, _ := json.MarshalIndent(s, "", "  ")
		w, _ := json.MarshalIndent(want, "", "  ")
		t.Fatalf("defaults:\n got %s\nwant %s", g, w)
	}
}

func TestCrossChecks(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want string
	}{
		{"tools match nothing", lines(
			"target: {builtin: {}}",
			"load: {rate: 5/s, duration: 10s}",
			"calls: [{tool: echo}]",
			"faults: [{kind: cancel, after: 1s, tools: [slow_*, ech]}]",
		), `x.yaml:4:43: faults[0].tools: "slow_*", "ech" matches no tool in calls`},
		{"after_progress without progress", lines(
			"target: {builtin: {}}",
			"load: {rate: 5/s, duration: 10s}",
			"calls: [{tool: echo, progress: false}]",
			"faults: [{kind: cancel, after_progress: 3}]",
		), `x.yaml:4:41: faults[0].after_progress: none of the calls it applies to asks for progress`},
		{"process probe without pid on http", lines(
			"target: {http: {url: 'http://h/'}}",
			"load: {rate: 5/s, duration: 10s}",
			"calls: [{tool: echo}]",
			"orphans: {probes: [{process: {}}]}",
		), `x.yaml:4:20: orphans.probes[0].process: pid is required with an http target (mcpchaos knows the pids only of servers it starts)`},
		{"2026 target with 2025 protocol", lines(
			"protocol: 2025-11-25",
			"target: {builtin: {era: 2026}}",
			"load: {rate: 5/s, duration: 10s}",
			"calls: [{tool: echo}]",
		), `x.yaml:2:25: target.builtin.era: a 2026-only target cannot speak protocol 2025-11-25`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse("x.yaml", []byte(tt.yaml), testEnv)
			if err == nil || err.Error() != tt.want {
				t.Errorf("error:\n%v\nwant:\n%s", err, tt.want)
			}
		})
	}
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "quickstart.yaml")
	src := lines(
		"# a comment",
		"name: quick",
		"target:",
		"  builtin: {}",
		"load:",
		"  duration: 5s",
		"  rate:   50/x",
		"calls: [{tool: echo}]",
	)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	want := path + `:7:11: load.rate: invalid rate "50/x": period "x" is not a duration or a unit such as s or 1m`
	if err == nil || err.Error() != want {
		t.Errorf("error:\n%v\nwant:\n%s", err, want)
	}
	var e *Error
	if !errors.As(err, &e) || e.Pos != (Pos{7, 11}) || e.File != path {
		t.Errorf("errors.As: %+v", e)
	}

	_, err = Load(filepath.Join(dir, "missing.yaml"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestOverride(t *testing.T) {
	staged := lines(
		"target: {builtin: {}}",
		"load: {stages: [{to: 10/s, over: 5s}]}",
		"calls: [{tool: echo}]",
	)
	closed := lines(
		"target: {builtin: {}}",
		"load: {concurrency: 3, duration: 7s}",
		"calls: [{tool: echo}]",
	)
	rate := Rate{Freq: 20, Per: time.Second}
	dur := 4 * time.Second
	zero := time.Duration(0)
	neg := -time.Second
	seed := int64(-9)
	tests := []struct {
		name     string
		src      string
		rate     *Rate
		duration *time.Duration
		seed     *int64
		want     Workload
		wantSeed int64
		err      string
	}{
		{"nothing", closed, nil, nil, nil, Workload{Concurrency: 3, Duration: sec(7)}, 1, ""},
		{"rate replaces concurrency", closed, &rate, nil, nil, Workload{Rate: rate, Duration: sec(7)}, 1, ""},
		{"rate and duration replace stages", staged, &rate, &dur, &seed, Workload{Rate: rate, Duration: sec(4)}, -9, ""},
		{"duration adds a hold to stages", staged, nil, &dur, nil, Workload{Stages: []Stage{{To: Rate{Freq: 10, Per: time.Second}, Over: sec(5), Pos: Pos{2, 17}}}, Duration: sec(4)}, 1, ""},
		{"zero hold after stages", staged, nil, &zero, nil, Workload{Stages: []Stage{{To: Rate{Freq: 10, Per: time.Second}, Over: sec(5), Pos: Pos{2, 17}}}}, 1, ""},
		{"rate over stages needs a duration", staged, &rate, nil, nil, Workload{}, 0, "rate override: the scenario's load has stages and no duration, so a constant rate has none; give a duration too"},
		{"zero duration without stages", closed, nil, &zero, nil, Workload{}, 0, "duration override 0s: must be positive without stages"},
		{"negative duration", closed, nil, &neg, nil, Workload{}, 0, "duration override -1s: must not be negative"},
		{"bad rate", closed, &Rate{}, nil, nil, Workload{}, 0, `rate override "": count and period must be positive`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustParse(t, "x.yaml", tt.src)
			before := s.Load
			err := s.Override(tt.rate, tt.duration, tt.seed)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error = %v, want %s", err, tt.err)
				}
				if !reflect.DeepEqual(s.Load, before) {
					t.Errorf("a failed override changed the load")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.want.MaxInFlight, tt.want.GracefulStop = DefaultMaxInFlight, DefaultGracefulStop
			if !reflect.DeepEqual(s.Load, tt.want) {
				t.Errorf("load = %+v, want %+v", s.Load, tt.want)
			}
			if s.Seed != tt.wantSeed {
				t.Errorf("seed = %d, want %d", s.Seed, tt.wantSeed)
			}
		})
	}
}

func TestExamplesInTestdata(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.yaml")
	if len(files) == 0 {
		t.Fatal("no testdata")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			if _, err := Load(f); err != nil {
				t.Error(err)
			}
		})
	}
}
