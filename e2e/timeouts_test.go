package e2e

import (
	"fmt"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/runtest"
	"github.com/mcpchaos/mcpchaos/report"
)

// TestTimeoutCap: an endless call keeps sending progress, so only the
// maximum timeout stops it — every call ends timeout_cap with progress
// still flowing, and a client that only resets on progress (the default
// policy reset-no-cap) would have waited for ever. How late the cap is
// enforced is the timing tier's (TestTimingTimeoutCapError).
func TestTimeoutCap(t *testing.T) {
	for _, transport := range []string{"http", "stdio"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			o := timeoutCap(t, transport)
			s := o.Sum
			n := s.Calls.Total
			if n < 8 {
				t.Fatalf("calls.total = %d, want about 10", n)
			}
			if s.Calls.TimeoutCap != n || s.Timeouts.Cap != n || s.Timeouts.CapWithProgress != n {
				t.Errorf("calls.timeout_cap = %d, timeouts.cap = %d, timeouts.cap_with_progress = %d; want all %d",
					s.Calls.TimeoutCap, s.Timeouts.Cap, s.Timeouts.CapWithProgress, n)
			}
			if s.Timeouts.Idle != 0 {
				t.Errorf("timeouts.idle = %d, want 0: progress arrived every 100 ms", s.Timeouts.Idle)
			}
			te := s.Latency.TimeoutError
			if te.Count != int64(n) {
				t.Errorf("latency_ms.timeout_error.count = %d, want %d", te.Count, n)
			}
			if te.P99 <= 0 && te.Max <= 0 {
				t.Errorf("latency_ms.timeout_error.p99 = %vms (max %vms), want recorded", te.P99, te.Max)
			}
			timeoutCapVerdicts(t, o)
		})
	}
}

// timeoutCap runs endless calls with progress every 100 ms against a 3 s
// cap over transport (the idle timeout as long: progress resets it, so the
// cap comes first unless a busy machine stretched a 100 ms gap to 3 s).
func timeoutCap(t *testing.T, transport string) outcome {
	t.Helper()
	sc := runtest.Parse(t, fmt.Sprintf(`
name: timeout-cap
seed: 5
target:
  builtin: {transport: %s, endless: true}
load: {rate: 10/1s, duration: 1s}
timeouts: {idle: 3s, max: 3s}
calls:
  - {tool: slow_task, arguments: {steps: 10, step_ms: 100}, progress: true}
orphans: {grace: 300ms, drain_max: 500ms}
progress: {grace: 1s}
`, transport))
	plan := planOf(t, sc)
	quick(&plan)
	return runPlan(t, sc, plan)
}

// timeoutCapVerdicts checks what timeoutCap's run says of the cap.
func timeoutCapVerdicts(t *testing.T, o outcome) {
	t.Helper()
	s := o.Sum
	n := s.Calls.Total
	if v := o.verdict(t, report.AreaTimeouts); v.Status != report.StatusWarning {
		t.Errorf("timeouts verdict = %q (%s), want warning", v.Status, v.Evidence)
	}
	pol := s.Timeouts.Policies
	if got := pol["reset-no-cap"]; got.WaitedForever != n || got.Killed != 0 {
		t.Errorf("timeouts.policies.reset-no-cap = %+v, want waited_forever %d, killed 0", got, n)
	}
	for _, name := range []string{"fixed-60s", "reset-with-cap"} {
		if got := pol[name]; got.WaitedForever != 0 || got.Killed != 0 {
			t.Errorf("timeouts.policies.%s = %+v, want neither killed nor waited for ever (our 3 s cap came first)", name, got)
		}
	}
	for _, r := range o.Recs {
		if r.Policies["fixed-60s"] != "undecided" || r.Policies["reset-no-cap"] != "waited_forever" {
			t.Errorf("call %d: policies %v, want fixed-60s undecided and reset-no-cap waited_forever", r.Seq, r.Policies)
			break
		}
	}
	// The cap cancelled the calls; the correct target stopped them.
	if c := s.Cancellation; c.Orphaned != 0 || c.LeftoverCalls != 0 || c.Cancels != n {
		t.Errorf("cancellation: orphaned %v, leftover_calls %d, cancels %d; want 0, 0, %d", c.Orphaned, c.LeftoverCalls, c.Cancels, n)
	}
}
