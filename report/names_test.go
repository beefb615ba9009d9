package report

import (
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/scenarios"
)

// testNames are the names a caller (engine.Prepare) would pass.
var testNames = Names{
	FaultKinds: []string{"cancel", "disconnect", "cancel_race", "stall_read", "malformed", "reissue", "notify_flood", "cancel_unknown"},
	Probes:     []string{"metric_mcp_inflight_calls", "server_cpu", "builtin_inflight"},
}

// TestScenarioCheckNames: a placeholder segment must name something that
// exists in the run, or the check is an error at its FILE:LINE:COLUMN
// with a suggestion; one that exists but did not occur is valid (0).
func TestScenarioCheckNames(t *testing.T) {
	tests := []struct {
		name, check string
		want        string // the error after the position; "" for valid
	}{
		{"fault kind", "faults.cancel.injected == 0", ""},
		{"fault kind that did not occur", "faults.notify_flood.refused == 0", ""},
		{"misspelt fault kind", "faults.cancle.injected == 0",
			`check "faults.cancle.injected == 0": unknown fault kind "cancle" (did you mean "cancel"? known: cancel, disconnect, cancel_race, stall_read, malformed, reissue, notify_flood, cancel_unknown)`},
		{"fault kind under a longer key", "faults.stall_reed.timing_error_ms.p99 < 5ms", `unknown fault kind "stall_reed" (did you mean "stall_read"?`},
		{"fault kind nothing like one", "faults.zzzzzzzz.injected == 0", `unknown fault kind "zzzzzzzz" (known: cancel,`},
		{"server coping", "faults.stall_read.server.buffered >= 0", ""},
		{"unknown server coping", "faults.stall_read.server.bufered >= 0", `unknown server coping "bufered" (did you mean "buffered"? known: buffered, dropped, errored, blocked)`},
		{"fault kind checked before the coping", "faults.stall_rea.server.bufered >= 0", `unknown fault kind "stall_rea"`},
		{"throttling kind", "throttling.by_kind.http_429 < 10", ""},
		{"unknown throttling kind", "throttling.by_kind.http_492 == 0",
			`unknown throttling kind "http_492" (did you mean "http_429"? known: http_429, http_503, rpc_code, rpc_message, tool_message, load_shed)`},
		{"probe", "cancellation.by_probe.server_cpu == 0", ""},
		{"the engine's own probe", "cancellation.by_probe.builtin_inflight == 0", ""},
		{"unknown probe", "cancellation.by_probe.nope > 0", `unknown probe "nope" (known: metric_mcp_inflight_calls, server_cpu, builtin_inflight)`},
		{"misspelt probe", "cancellation.by_probe.server_cpus == 0", `unknown probe "server_cpus" (did you mean "server_cpu"?`},
		{"policy", "timeouts.policies.fixed.killed == 0", ""},
		{"unknown policy", "timeouts.policies.fixd.waited_forever == 0", `unknown timeout policy "fixd" (did you mean "fixed"? known: fixed, capped)`},
		{"tool", "tools.slow_task.calls > 0", ""},
		{"misspelt tool", "tools.slow_tsk.calls > 0", `unknown tool "slow_tsk" (did you mean "slow_task"? known: slow_task, echo)`},
		{"outcome", "tools.echo.by_outcome.timeout_idle == 0", ""},
		{"unknown outcome", "tools.echo.by_outcome.timeout == 0", `unknown outcome "timeout"`},
		{"unknown key still comes first", "faults.cancel.injectd == 0", `unknown key "faults.cancel.injectd" (did you mean "faults.<kind>.injected"?`},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := scenarios.ParseCheck(tt.check)
			if err != nil {
				t.Fatal(err)
			}
			c.Pos = scenarios.Pos{Line: 20 + i, Column: 5}
			sc := &scenarios.Scenario{File: "x.yaml", Checks: []scenarios.Check{c},
				Calls:    []scenarios.Call{{Tool: "slow_task"}, {Tool: "echo"}, {Tool: "slow_task"}},
				Timeouts: scenarios.Timeouts{Policies: []scenarios.Policy{{Name: "fixed"}, {Name: "capped"}}}}
			checks, errs := ScenarioChecks(sc, testNames)
			if tt.want == "" {
				if len(errs) > 0 || len(checks) != 1 {
					t.Fatalf("errors %v, want the check accepted", errs)
				}
				return
			}
			pos := "x.yaml:" + c.Pos.String() + ": "
			if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), pos) || !strings.Contains(errs[0].Error(), tt.want) {
				t.Fatalf("errors = %v\nwant one at %s containing %s", errs, pos, tt.want)
			}
		})
	}
}

// TestScenarioCheckNamesNoProbes: a run without probes has no
// cancellation.by_probe names at all.
func TestScenarioCheckNamesNoProbes(t *testing.T) {
	c, _ := scenarios.ParseCheck("cancellation.by_probe.process == 0")
	c.Pos = scenarios.Pos{Line: 3, Column: 5}
	_, errs := ScenarioChecks(&scenarios.Scenario{File: "x.yaml", Checks: []scenarios.Check{c}}, Names{Probes: []string{}})
	if want := `x.yaml:3:5: check "cancellation.by_probe.process == 0": unknown probe "process": this run has none`; len(errs) != 1 || errs[0].Error() != want {
		t.Fatalf("errors = %v, want %s", errs, want)
	}
}

// TestVerdictsFailTheRun: a violation fails the run like a failed check
// unless failOnViolation is off; a warning never does; the Result line
// says why.
func TestVerdictsFailTheRun(t *testing.T) {
	tests := []struct {
		name            string
		status          string // of the progress verdict
		check           Check
		failOnViolation bool
		pass            bool
		result          string
	}{
		{"pass", StatusPass, keyCheck("calls.ok", "==", 100), true, true, "PASS (1 check)"},
		{"violation fails", StatusViolation, keyCheck("calls.ok", "==", 100), true, false, "FAIL (violation in progress)"},
		{"violation and a failed check", StatusViolation, keyCheck("calls.ok", "==", 1), true, false, "FAIL (1 of 1 check failed; violation in progress)"},
		{"violation allowed", StatusViolation, keyCheck("calls.ok", "==", 100), false, true,
			"PASS (1 check; violation in progress not failing the run: fail_on_violation is off)"},
		{"violation allowed, failed check", StatusViolation, keyCheck("calls.ok", "==", 1), false, false, "FAIL (1 of 1 check failed)"},
		{"warning never fails", StatusWarning, keyCheck("calls.ok", "==", 100), true, true, "PASS (1 check)"},
		{"not exercised never fails", StatusNotExercised, keyCheck("calls.ok", "==", 100), true, true, "PASS (1 check)"},
		{"legacy behaviour never fails", StatusLegacy, keyCheck("calls.ok", "==", 100), true, true, "PASS (1 check)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := checkSummary()
			for i := range s.Verdicts {
				s.Verdicts[i].Status = StatusPass
				if s.Verdicts[i].Area == AreaProgress {
					s.Verdicts[i].Status = tt.status
				}
			}
			s.Evaluate([]Check{tt.check}, tt.failOnViolation)
			if s.Pass != tt.pass || s.FailOnViolation != tt.failOnViolation {
				t.Errorf("pass %v, fail_on_violation %v; want %v, %v", s.Pass, s.FailOnViolation, tt.pass, tt.failOnViolation)
			}
			if got := s.Result(); got != tt.result {
				t.Errorf("result %q, want %q", got, tt.result)
			}
		})
	}
}

// TestDefaultPolicyChecks: every default timeout policy can be named in a
// check as it is written (fixed-60s), and its name with _ for - is an
// error that suggests it.
func TestDefaultPolicyChecks(t *testing.T) {
	policies := scenarios.DefaultPolicies()
	for _, p := range policies {
		t.Run(p.Name, func(t *testing.T) {
			if !scenarios.ValidKeySegment(p.Name) {
				t.Fatalf("default policy name %q is not a valid key segment", p.Name)
			}
			for _, tc := range []struct{ check, want string }{
				{"timeouts.policies." + p.Name + ".killed == 0", ""},
				{"timeouts.policies." + strings.ReplaceAll(p.Name, "-", "_") + ".waited_forever == 0",
					`unknown timeout policy "` + strings.ReplaceAll(p.Name, "-", "_") + `" (did you mean "` + p.Name + `"?`},
			} {
				c, err := scenarios.ParseCheck(tc.check)
				if err != nil {
					t.Fatalf("ParseCheck(%q): %v", tc.check, err)
				}
				c.Pos = scenarios.Pos{Line: 9, Column: 5}
				sc := &scenarios.Scenario{File: "x.yaml", Checks: []scenarios.Check{c}, Timeouts: scenarios.Timeouts{Policies: policies}}
				checks, errs := ScenarioChecks(sc, testNames)
				switch {
				case tc.want == "" && (len(errs) > 0 || len(checks) != 1):
					t.Errorf("%s: errors %v, want the check accepted", tc.check, errs)
				case tc.want != "" && (len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.want)):
					t.Errorf("%s: errors %v, want one containing %s", tc.check, errs, tc.want)
				}
			}
		})
	}
}
