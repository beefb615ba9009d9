package e2e

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/runtest"
	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// TestSDKHTTPDisconnect runs against a stateless Streamable HTTP server
// written with the official Go SDK, whose tool burns CPU for 3.5 s and
// stops when its context is cancelled. Every call is cut with an RST 1 s in
// (time for a starved server to have read the request and started the burn). Without PropagateRequestCancellation (the SDK's default) the handlers
// never hear of it and burn on: leftover CPU, a violation under the 2026
// rule that a disconnect is a cancel. With it, they stop.
//
// It measures CPU, so it does not run in parallel with anything.
func TestSDKHTTPDisconnect(t *testing.T) {
	for _, tc := range []struct {
		name      string
		propagate bool
	}{
		{"default-no-propagation", false},
		{"propagate-request-cancellation", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, pid := sdkHTTPServer(t, tc.propagate)
			sc := runtest.Parse(t, fmt.Sprintf(`
name: sdk-http-disconnect
seed: 9
target:
  http: {url: %q, pid: %d}
load: {rate: 2/1s, duration: 1s}
timeouts: {idle: 20s, max: 30s}
calls:
  - {tool: burn, arguments: {seconds: 3.5}, progress: false}
faults:
  - {kind: disconnect, probability: 1, after: 1s, mode: rst}
orphans:
  grace: 500ms
  drain_max: 300ms
  probes:
    - {process: {pid: %d}}
    - {tool: {name: active, pointer: /active}}
`, url, pid, pid))
			o := runPlan(t, sc, planOf(t, sc))
			s := o.Sum
			c := s.Cancellation
			if s.Era != "2026-07-28" {
				t.Fatalf("era = %q, want 2026-07-28 (a stateless SDK server)", s.Era)
			}
			if s.Calls.Disconnected != s.Calls.Total || s.Calls.Total < 2 {
				t.Fatalf("calls.disconnected = %d of %d, want every call", s.Calls.Disconnected, s.Calls.Total)
			}
			if len(c.ProbeErrors) > 0 {
				t.Errorf("probe errors: %v", c.ProbeErrors)
			}
			v := o.verdict(t, report.AreaCancellation)
			if !tc.propagate {
				// Two handlers burn on for ~2.5 s; the quiet window is 1 s
				// (how much CPU they get in it is the machine's: 0.16 s
				// beside other work).
				if c.LeftoverCPUS <= 0 {
					t.Errorf("cancellation.leftover_cpu_s = %v, want > 0: two handlers kept burning after the disconnect", c.LeftoverCPUS)
				}
				if c.Orphaned != float64(s.Calls.Total) {
					t.Errorf("cancellation.orphaned = %v, want %d (every burn still running, by the server's own count)", c.Orphaned, s.Calls.Total)
				}
				if v.Status != report.StatusViolation {
					t.Errorf("cancellation verdict = %q (%s), want violation", v.Status, v.Evidence)
				}
				if !strings.Contains(v.Evidence, "2026-07-28") || !strings.Contains(v.Evidence, "disconnect is a cancel") {
					t.Errorf("cancellation evidence %q does not name the 2026-07-28 rule (a disconnect is a cancel)", v.Evidence)
				}
				return
			}
			if c.LeftoverCPUS >= 0.1 {
				t.Errorf("cancellation.leftover_cpu_s = %v, want < 0.1: the handlers stopped at the disconnect", c.LeftoverCPUS)
			}
			if c.Orphaned != 0 || c.LeftoverCalls != 0 {
				t.Errorf("cancellation.orphaned = %v, leftover_calls = %d; want 0 and 0", c.Orphaned, c.LeftoverCalls)
			}
			if v.Status != report.StatusPass {
				t.Errorf("cancellation verdict = %q (%s), want pass", v.Status, v.Evidence)
			}
		})
	}
}

// TestSDKStdioIgnoresCancel runs against a stdio server written with the
// official Go SDK whose tool ignores cancellation: after our
// notifications/cancelled it keeps reporting progress (calls with a token)
// and answers 600 ms later (calls without one). Both are wire evidence of
// work after the cancel. The answer comes after the 300 ms grace and well
// inside the 1 s late window (it came 900 ms after the cancel, and on a
// slow run past the window, where it counts for the run, not the call).
func TestSDKStdioIgnoresCancel(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sc := runtest.Parse(t, fmt.Sprintf(`
name: sdk-stdio-ignores-cancel
seed: 9
target:
  stdio: {command: [%q], env: {%s: %s}}
load: {rate: 6/1s, duration: 1s}
timeouts: {idle: 20s, max: 30s}
calls:
  - {tool: stubborn, arguments: {seconds: 0.9, step_ms: 100}, progress: true}
  - {tool: stubborn, arguments: {seconds: 0.9, step_ms: 100}, progress: false}
faults:
  - {kind: cancel, probability: 1, after: 300ms}
orphans: {grace: 300ms, drain_max: 300ms}
progress: {grace: 300ms}
`, self, helperEnv, helperSDKStdio))
	plan := planOf(t, sc)
	quick(&plan)
	o := runPlan(t, sc, plan)
	s := o.Sum
	c := s.Cancellation
	if s.Calls.Cancelled != s.Calls.Total || s.Calls.Total < 5 {
		t.Fatalf("calls.cancelled = %d of %d, want every call", s.Calls.Cancelled, s.Calls.Total)
	}
	withToken, without := 0, 0
	for _, r := range o.Recs {
		if r.Progress != nil {
			withToken++
		} else {
			without++
		}
	}
	if withToken == 0 || without == 0 {
		t.Fatalf("the mix gave %d calls with a progress token and %d without; the test needs both", withToken, without)
	}
	if got := s.Progress.Violations.AfterCancel; got < withToken {
		t.Errorf("progress.violations.after_cancel = %d, want at least one per call with a token (%d)", got, withToken)
	}
	if c.LateResponses < without {
		t.Errorf("cancellation.late_responses = %d, want at least one per call without a token (%d)", c.LateResponses, without)
	}
	if c.LeftoverCalls != s.Calls.Total {
		t.Errorf("cancellation.leftover_calls = %d, want every call (%d)", c.LeftoverCalls, s.Calls.Total)
		logRecords(t, o, func(r *results.Record) bool { return !leftoverRecord(r) })
	}
	if v := o.verdict(t, report.AreaCancellation); v.Status != report.StatusViolation {
		t.Errorf("cancellation verdict = %q (%s), want violation", v.Status, v.Evidence)
	}
	if v := o.verdict(t, report.AreaProgress); v.Status != report.StatusViolation {
		t.Errorf("progress verdict = %q (%s), want violation (progress after cancel)", v.Status, v.Evidence)
	}
}
