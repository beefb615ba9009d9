package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// violationScenario gets a progress violation from every slow call: the
// built-in target repeats or lowers every progress value.
const violationScenario = `name: violation
seed: 5
target:
  builtin: {transport: http, non_monotonic: 1}
load: {rate: 20/1s, duration: 300ms}
timeouts: {idle: 5s, max: 10s}
calls:
  - {tool: slow_task, arguments: {steps: 4, step_ms: 5}, progress: true}
orphans: {grace: 50ms}
%s`

// TestRunExitStatus: a violation verdict fails the run (exit 1) like a
// failed check, unless --no-fail-on-violation or fail_on_violation: false
// says otherwise; the Result line says why.
func TestRunExitStatus(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		extra  string // appended to the scenario
		flags  []string
		code   int
		result string
	}{
		{"a violation fails the run", "", nil, 1, "FAIL (violation in progress)"},
		{"the flag lets it pass", "", []string{"--no-fail-on-violation"}, 0,
			"PASS (no checks; violation in progress not failing the run: fail_on_violation is off)"},
		{"the key lets it pass", "fail_on_violation: false\n", nil, 0,
			"PASS (no checks; violation in progress not failing the run: fail_on_violation is off)"},
		{"the key set to true", "fail_on_violation: true\n", nil, 1, "FAIL (violation in progress)"},
		{"a failed check still fails", "fail_on_violation: false\nchecks: [calls.total == 0]\n", nil, 1, "FAIL (1 of 1 check failed)"},
		{"both are named", "checks: [calls.total == 0]\n", nil, 1, "FAIL (1 of 1 check failed; violation in progress)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := writeScenario(t, "v.yaml", fmt.Sprintf(violationScenario, tt.extra))
			sum := filepath.Join(t.TempDir(), "s.json")
			args := append([]string{"run", path, "-q", "--summary-json", sum}, tt.flags...)
			code, stdout, stderr := runCLI(t, context.Background(), args...)
			if code != tt.code {
				t.Fatalf("exit code %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, stdout, stderr)
			}
			if !strings.Contains(stdout, "Result        "+tt.result+"\n") {
				t.Errorf("stdout does not say %q:\n%s", tt.result, stdout)
			}
			s := readJSON(t, sum)
			if s["pass"] != (tt.code == 0) {
				t.Errorf("JSON summary: pass %v, want %v", s["pass"], tt.code == 0)
			}
			if want := tt.flags == nil && !strings.Contains(tt.extra, "false"); s["fail_on_violation"] != want {
				t.Errorf("JSON summary: fail_on_violation %v, want %v", s["fail_on_violation"], want)
			}
		})
	}
}
