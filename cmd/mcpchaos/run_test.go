package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/results"
)

// echoScenario is a quick scenario: echo calls against the builtin target.
const echoScenario = `name: echo-only
seed: 3
target:
  builtin: {transport: http}
load: {rate: 5/1s, duration: 10s}
timeouts: {idle: 5s, max: 10s}
calls:
  - {tool: echo, arguments: {text: hi}}
orphans: {grace: 100ms}
`

func TestRunUsageErrors(t *testing.T) {
	t.Parallel()
	good := writeScenario(t, "good.yaml", echoScenario)
	invalid := writeScenario(t, "invalid.yaml", "name: x\ntarget: {builtin: {}}\nload: {rate: 5/x, duration: 1s}\ncalls: [{tool: echo, wieght: 2}]\n")
	unknownKey := writeScenario(t, "unknown-key.yaml", echoScenario+"checks:\n  - calls.ok >= 0\n  - calls.nope > 0\n")
	durationVsCount := writeScenario(t, "duration-vs-count.yaml", echoScenario+"checks:\n  - calls.total < 2s\n")
	badTarget := writeScenario(t, "bad-target.yaml", strings.Replace(echoScenario, "builtin: {transport: http}", "builtin: {transport: http, leak_on_cancel: 2}", 1))
	missing := filepath.Join(t.TempDir(), "missing.yaml")
	for _, tt := range []struct {
		name   string
		args   []string
		code   int
		stderr []string // each must appear
		stdout []string
	}{
		{"no command", nil, 2, nil, []string{"usage: mcpchaos COMMAND"}},
		{"help", []string{"--help"}, 0, nil, []string{"usage: mcpchaos COMMAND", "run "}},
		{"unknown command", []string{"runn"}, 2, []string{`unknown command "runn"`}, nil},
		{"run without a file", []string{"run"}, 2, []string{"mcpchaos run: want exactly one scenario file"}, nil},
		{"run with two files", []string{"run", good, good}, 2, []string{"want exactly one scenario file"}, nil},
		{"unknown flag", []string{"run", "--nope", good}, 2, []string{"mcpchaos run: unknown flag: --nope"}, nil},
		{"bad rate flag", []string{"run", "--rate", "fast", good}, 2, []string{`"fast"`, "--rate"}, nil},
		{"bad duration flag", []string{"run", "--duration", "soon", good}, 2, []string{`"soon"`, "--duration"}, nil},
		{"missing file", []string{"run", missing}, 2, []string{"mcpchaos run:", missing, "no such file"}, nil},
		{"invalid scenario", []string{"run", invalid}, 2, []string{
			invalid + `:3:14: load.rate: invalid rate "5/x"`,
			invalid + `:4:22: calls[0]: unknown key "wieght"`}, nil},
		{"a check with an unknown key", []string{"run", unknownKey}, 2, []string{
			unknownKey + `:12:5: check "calls.nope > 0": unknown key "calls.nope"`}, nil},
		{"a duration compared with a count", []string{"run", durationVsCount}, 2, []string{
			durationVsCount + `:11:5: check "calls.total < 2s": a duration cannot be compared`}, nil},
		{"a bad builtin knob", []string{"run", badTarget}, 2, []string{badTarget + ":", "leak_on_cancel"}, nil},
		{"run --help", []string{"run", "--help"}, 0, nil, []string{"usage: mcpchaos run SCENARIO.yaml", "--summary-json", "--seed"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, context.Background(), tt.args...)
			if code != tt.code {
				t.Errorf("exit code %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, stdout, stderr)
			}
			for _, want := range tt.stderr {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr does not mention %q:\n%s", want, stderr)
				}
			}
			for _, want := range tt.stdout {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout does not mention %q:\n%s", want, stdout)
				}
			}
			if tt.code == 2 && len(tt.stderr) > 0 && strings.Contains(stdout, "Scenario") {
				t.Errorf("a usage error printed a summary:\n%s", stdout)
			}
		})
	}
}

// summaryKeys are keys every JSON summary has (docs/summary.md).
var summaryKeys = []string{"scenario", "seed", "era", "transport", "duration_s", "calls.total", "latency_ms.call.p99",
	"progress.violations.total", "cancellation.orphaned", "throttling.total", "timeouts.idle", "timeouts.cap", "checks", "pass"}

func TestRunQuickstart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, sum := filepath.Join(dir, "r.jsonl.gz"), filepath.Join(dir, "s.json")
	code, stdout, stderr := runCLI(t, context.Background(), "run", "../../examples/quickstart.yaml", "--duration", "2s", "-q",
		"--output", out, "--summary-json", sum)
	if code != 0 && code != 1 {
		t.Fatalf("exit code %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	s := readJSON(t, sum)
	if code == 1 {
		// The quickstart's latency check (p99(call) < 2s) is about the
		// machine too: on a starved one it may fail. No other check may.
		// (A verdict may: a violation fails the run now, and on a starved
		// machine progress may come later than the 100 ms grace.)
		for _, c := range s["checks"].([]any) {
			c := c.(map[string]any)
			if check := c["check"].(string); c["pass"] != true && !strings.HasPrefix(check, "p99(") {
				t.Errorf("check %q failed", check)
			}
		}
		t.Logf("exit code 1: a latency check failed, or a verdict is a violation, on a busy machine\n%s", stdout)
	}
	wantResult := map[int]string{0: "Result        PASS", 1: "Result        FAIL"}[code]
	for _, want := range []string{"Scenario      quickstart", "seed 42", "Era           2026-07-28", wantResult} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary does not say %q:\n%s", want, stdout)
		}
	}
	if stderr != "" {
		t.Errorf("stderr with -q: %q", stderr)
	}

	for _, key := range summaryKeys {
		if _, ok := lookup(s, key); !ok {
			t.Errorf("summary JSON has no %s", key)
		}
	}
	for _, o := range results.Outcomes {
		num(t, s, "calls."+o)
	}
	if s["scenario"] != "quickstart" || s["era"] != "2026-07-28" || s["transport"] != "http" || s["pass"] != (code == 0) || num(t, s, "seed") != 42 {
		t.Errorf("summary: scenario %v, era %v, transport %v, pass %v, seed %v", s["scenario"], s["era"], s["transport"], s["pass"], s["seed"])
	}
	if checks, _ := s["checks"].([]any); len(checks) != 3 {
		t.Errorf("checks %v, want the scenario's 3", s["checks"])
	}

	f, err := results.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	if f.Torn || f.Header.Scenario != "quickstart" || f.Header.Seed != 42 || f.Header.Era != "2026-07-28" || f.Trailer == nil || f.Trailer.Interrupted {
		t.Fatalf("results file: torn %v, header %+v, trailer %+v", f.Torn, f.Header, f.Trailer)
	}
	total := int(num(t, s, "calls.total"))
	if len(f.Records) != total {
		t.Errorf("%d records, summary counts %d calls", len(f.Records), total)
	}
	// 40/s for 2 s: 80 first attempts, seq 0..79, each once.
	var seqs []uint64
	for _, r := range f.Records {
		if r.Retry == "" {
			seqs = append(seqs, r.Seq)
		}
	}
	slices.Sort(seqs)
	if len(seqs) != 80 || seqs[0] != 0 || seqs[79] != 79 || len(slices.Compact(seqs)) != 80 {
		t.Errorf("first attempts %v, want seq 0..79 once each", seqs)
	}
	if !strings.Contains(string(f.Trailer.Summary), `"scenario":"quickstart"`) {
		t.Errorf("trailer summary %s", f.Trailer.Summary)
	}
}

func TestRunChecks(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		checks []string
		code   int
		result string
		pass   []bool
	}{
		{"a failing check", []string{"calls.total < 1", "calls.ok >= 1"}, 1, "FAIL (1 of 2 checks failed)", []bool{false, true}},
		// A duration compared with a key in seconds is converted.
		{"durations are converted", []string{"duration_s >= 100ms", "duration_s < 1m", "p99(call) < 10s"}, 0, "PASS (3 checks)", []bool{true, true, true}},
		{"a histogram with no values fails", []string{"p99(timeout_error) < 1s"}, 1, "FAIL (1 of 1 check failed)", []bool{false}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src := echoScenario + "checks:\n"
			for _, c := range tt.checks {
				src += fmt.Sprintf("  - %q\n", c)
			}
			path := writeScenario(t, "checks.yaml", src)
			sum := filepath.Join(t.TempDir(), "s.json")
			code, stdout, stderr := runCLI(t, context.Background(), "run", path, "--duration", "500ms", "-q", "--summary-json", sum)
			if code != tt.code {
				t.Fatalf("exit code %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, stdout, stderr)
			}
			if !strings.Contains(stdout, "Result        "+tt.result) {
				t.Errorf("stdout does not say %q:\n%s", tt.result, stdout)
			}
			s := readJSON(t, sum)
			checks, _ := s["checks"].([]any)
			if len(checks) != len(tt.pass) || s["pass"] != (tt.code == 0) {
				t.Fatalf("checks %v, pass %v", s["checks"], s["pass"])
			}
			for i, c := range checks {
				c := c.(map[string]any)
				if c["check"] != tt.checks[i] || c["pass"] != tt.pass[i] {
					t.Errorf("check %d: %v, want %q passing %v", i, c, tt.checks[i], tt.pass[i])
				}
				if mark := map[bool]string{true: "PASS", false: "FAIL"}[tt.pass[i]]; !strings.Contains(stdout, mark+"  "+tt.checks[i]) {
					t.Errorf("stdout does not list %s %s", mark, tt.checks[i])
				}
			}
		})
	}
}

func TestRunOverrides(t *testing.T) {
	t.Parallel()
	path := writeScenario(t, "echo.yaml", echoScenario)
	dir := t.TempDir()
	out, sum := filepath.Join(dir, "r.jsonl"), filepath.Join(dir, "s.json")
	code, stdout, stderr := runCLI(t, context.Background(), "run", path, "--rate", "20/1s", "--duration", "1s", "--seed", "7",
		"-q", "-o", out, "--summary-json", sum)
	if code != 0 {
		t.Fatalf("exit code %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "seed 7") {
		t.Errorf("summary does not show the seed override:\n%s", stdout)
	}
	s := readJSON(t, sum)
	// 20/s for 1 s instead of 5/s for 10 s.
	if num(t, s, "seed") != 7 || num(t, s, "calls.total") != 20 || num(t, s, "calls.ok") != 20 {
		t.Errorf("summary: seed %v, calls %v", s["seed"], s["calls"])
	}
	if d := num(t, s, "duration_s"); d < 0.9 || d > 5 {
		t.Errorf("duration_s %g, want about 1", d)
	}
	f, err := results.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	if f.Header.Seed != 7 || len(f.Records) != 20 || f.Trailer == nil {
		t.Fatalf("results: seed %d, %d records, trailer %v", f.Header.Seed, len(f.Records), f.Trailer)
	}
	// The intended times follow the new rate: 50 ms apart.
	// Records come in completion order: the first call is the lowest seq.
	first, firstSeq := f.Records[0].Scheduled, f.Records[0].Seq
	for _, r := range f.Records {
		if r.Seq < firstSeq {
			first, firstSeq = r.Scheduled, r.Seq
		}
	}
	for _, r := range f.Records {
		if got, want := r.Scheduled.Sub(first).Milliseconds(), int64(r.Seq)*50; got != want {
			t.Errorf("seq %d scheduled at +%dms, want +%dms", r.Seq, got, want)
		}
	}
	cfg := string(f.Header.Config)
	if !strings.Contains(cfg, `"Seed":7`) && !strings.Contains(cfg, `"seed":7`) {
		t.Errorf("the header's config does not hold the overridden seed: %s", cfg)
	}
}

// TestRunBuiltinStdio: a builtin stdio target is `mcpchaos serve --stdio`
// started by the run itself (here the test binary stands in for mcpchaos;
// see TestMain), with the knobs as flags.
func TestRunBuiltinStdio(t *testing.T) {
	t.Parallel()
	src := strings.Replace(echoScenario, "builtin: {transport: http}", "builtin: {transport: stdio, stall_after: 1}", 1) +
		"  - {tool: slow_task, arguments: {steps: 3, step_ms: 10}, progress: true}\n"
	src = strings.Replace(src, "orphans: {grace: 100ms}\n", "", 1) + "orphans: {grace: 100ms}\n"
	path := writeScenario(t, "stdio.yaml", src)
	sum := filepath.Join(t.TempDir(), "s.json")
	code, stdout, stderr := runCLI(t, context.Background(), "run", path, "--rate", "10/1s", "--duration", "1s", "-q", "--summary-json", sum)
	if code != 0 {
		t.Fatalf("exit code %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	s := readJSON(t, sum)
	if s["transport"] != "stdio" || num(t, s, "calls.total") != 10 || num(t, s, "calls.ok") != 10 {
		t.Errorf("summary: transport %v, calls %v", s["transport"], s["calls"])
	}
	// The knob reached the server: progress stopped after one step.
	if n, calls := num(t, s, "progress.notifications"), num(t, s, "progress.calls"); calls == 0 || n != calls {
		t.Errorf("%g notifications on %g calls, want one each (stall_after: 1)", n, calls)
	}
}
