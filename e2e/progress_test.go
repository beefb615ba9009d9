package e2e

import (
	"fmt"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/runtest"
	"github.com/mcpchaos/mcpchaos/report"
)

// TestNonMonotonicEqualsGroundTruth: every repeated or lowered progress
// value the target sent is counted, no more: the count equals the
// target's own non_monotonic_total.
func TestNonMonotonicEqualsGroundTruth(t *testing.T) {
	for _, transport := range []string{"http", "stdio"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			sc := runtest.Parse(t, fmt.Sprintf(`
name: non-monotonic
seed: 11
target:
  builtin: {transport: %s, non_monotonic: 0.2}
load: {rate: 20/1s, duration: 2s}
timeouts: {idle: 10s, max: 20s}
calls:
  - {tool: slow_task, arguments: {steps: 20, step_ms: 20}, progress: true}
orphans: {grace: 200ms, drain_max: 300ms}
`, transport))
			plan := planOf(t, sc)
			quick(&plan)
			truth := groundTruth(t, sc, &plan)
			o := runPlan(t, sc, plan)
			m := truth()
			bad, sent := m["mcpchaos_target_non_monotonic_total"], m["mcpchaos_target_progress_sent_total"]
			s := o.Sum
			if s.Calls.OK != s.Calls.Total {
				t.Fatalf("calls.ok = %d of %d: every call must complete, or notifications could be lost", s.Calls.OK, s.Calls.Total)
			}
			if float64(s.Progress.Notifications) != sent {
				t.Fatalf("progress.notifications = %d, the target sent %v: notifications were lost", s.Progress.Notifications, sent)
			}
			if bad < 20 {
				t.Fatalf("the target sent only %v bad values; the test needs more", bad)
			}
			if got := s.Progress.Violations.NonMonotonic; float64(got) != bad {
				t.Errorf("progress.violations.non_monotonic = %d, the target sent %v repeated or lowered values", got, bad)
			}
			if got := s.Progress.Violations.Total; got != s.Progress.Violations.NonMonotonic {
				t.Errorf("progress.violations.total = %d, want only the non-monotonic ones (%d)", got, s.Progress.Violations.NonMonotonic)
			}
			if v := o.verdict(t, report.AreaProgress); v.Status != report.StatusViolation {
				t.Errorf("progress verdict = %q (%s), want violation", v.Status, v.Evidence)
			}
		})
	}
}

// stallScenario: progress stops after 3 of 10 steps of 150 ms, and the
// call answers 1.05 s later.
func stallScenario(transport, idle string) string {
	return fmt.Sprintf(`
name: stalls
seed: 2
target:
  builtin: {transport: %s, stall_after: 3}
load: {rate: 10/1s, duration: 1s}
timeouts: {idle: %s, max: 20s}
calls:
  - {tool: slow_task, arguments: {steps: 10, step_ms: 150}, progress: true}
orphans: {grace: 200ms, drain_max: 300ms}
progress: {stall: 500ms, grace: 1s}
`, transport, idle)
}

// TestStalls: a silence longer than progress.stall is a stall on every
// call — a warning, not a violation; with an idle timeout shorter than the
// silence, the calls time out instead.
func TestStalls(t *testing.T) {
	for _, transport := range []string{"http", "stdio"} {
		t.Run(transport+"/stall", func(t *testing.T) {
			t.Parallel()
			sc := runtest.Parse(t, stallScenario(transport, "5s"))
			plan := planOf(t, sc)
			quick(&plan)
			o := runPlan(t, sc, plan)
			s := o.Sum
			if s.Calls.OK != s.Calls.Total || s.Calls.Total < 8 {
				t.Fatalf("calls.ok = %d of %d, want every call (about 10) ok", s.Calls.OK, s.Calls.Total)
			}
			if s.Progress.Stalls != s.Calls.Total {
				t.Errorf("progress.stalls = %d, want every call (%d)", s.Progress.Stalls, s.Calls.Total)
			}
			if s.Progress.Notifications != 3*s.Calls.Total {
				t.Errorf("progress.notifications = %d, want 3 per call", s.Progress.Notifications)
			}
			// The silence lasts 7 steps of 150 ms, or longer on a busy
			// machine; its upper bound is the timing tier's
			// (TestTimingStallGap).
			if gap := s.Latency.ProgressGap; gap.P50 < 900 {
				t.Errorf("latency_ms.progress_gap p50 %vms, max %vms; want about 1050ms", gap.P50, gap.Max)
			}
			if v := o.verdict(t, report.AreaProgress); v.Status != report.StatusWarning {
				t.Errorf("progress verdict = %q (%s), want warning", v.Status, v.Evidence)
			}
		})
		t.Run(transport+"/idle-timeout", func(t *testing.T) {
			t.Parallel()
			sc := runtest.Parse(t, stallScenario(transport, "700ms"))
			plan := planOf(t, sc)
			quick(&plan)
			o := runPlan(t, sc, plan)
			s := o.Sum
			if s.Calls.TimeoutIdle != s.Calls.Total || s.Timeouts.Idle != s.Calls.Total || s.Calls.Total < 8 {
				t.Errorf("calls.timeout_idle = %d, timeouts.idle = %d, want every call (%d)", s.Calls.TimeoutIdle, s.Timeouts.Idle, s.Calls.Total)
			}
			if s.Timeouts.CapWithProgress != 0 {
				t.Errorf("timeouts.cap_with_progress = %d, want 0", s.Timeouts.CapWithProgress)
			}
			if te := s.Latency.TimeoutError; te.Count != int64(s.Calls.Total) {
				t.Errorf("latency_ms.timeout_error.count = %d, want %d", te.Count, s.Calls.Total)
			}
			if v := o.verdict(t, report.AreaTimeouts); v.Status != report.StatusPass {
				t.Errorf("timeouts verdict = %q (%s), want pass", v.Status, v.Evidence)
			}
			if c := s.Cancellation; c.Orphaned != 0 || c.LeftoverCalls != 0 {
				t.Errorf("cancellation: orphaned %v, leftover_calls %d; want 0 and 0", c.Orphaned, c.LeftoverCalls)
			}
		})
	}
}

// TestFloods: 200 extra notifications per second per call, against a
// flood threshold of 15 Hz: every call is a flood. The threshold is above
// the 10 step notifications a call gets in all, so only the extra ones can
// pass it, and far below 200 Hz: a starved machine delivered the extra
// ones at 63 Hz, which a 50 Hz threshold took for no flood in 2 calls of
// 4. The rate measured, and every call a flood at 50 Hz, are the timing
// tier's (TestTimingFloodRate).
func TestFloods(t *testing.T) {
	for _, transport := range []string{"http", "stdio"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			o := floods(t, transport, defaultFloodHz)
			s := o.Sum
			if s.Progress.Floods == 0 || s.Progress.Floods != s.Calls.Total {
				t.Errorf("progress.floods = %d, want every call (%d)", s.Progress.Floods, s.Calls.Total)
			}
			if s.Progress.MaxRateHz <= defaultFloodHz {
				t.Errorf("progress.max_rate_hz = %d, want above the %d Hz threshold", s.Progress.MaxRateHz, defaultFloodHz)
			}
			if s.Progress.Violations.Total != 0 {
				t.Errorf("progress.violations.total = %d, want 0: flood values still increase", s.Progress.Violations.Total)
			}
			if v := o.verdict(t, report.AreaProgress); v.Status != report.StatusWarning {
				t.Errorf("progress verdict = %q (%s), want warning", v.Status, v.Evidence)
			}
		})
	}
}

// defaultFloodHz is TestFloods's flood threshold (see there).
const defaultFloodHz = 15

// floods runs calls of 1.5 s (10 steps of 150 ms) whose target sends 200
// extra notifications a second, over transport, against a flood threshold
// of floodHz.
func floods(t *testing.T, transport string, floodHz int) outcome {
	t.Helper()
	sc := runtest.Parse(t, fmt.Sprintf(`
name: floods
seed: 4
target:
  builtin: {transport: %s, progress_flood_hz: 200}
load: {rate: 4/1s, duration: 1s}
timeouts: {idle: 10s, max: 20s}
calls:
  - {tool: slow_task, arguments: {steps: 10, step_ms: 150}, progress: true}
orphans: {grace: 200ms, drain_max: 300ms}
progress: {flood_hz: %d}
`, transport, floodHz))
	plan := planOf(t, sc)
	quick(&plan)
	return runPlan(t, sc, plan)
}

// TestProgressAfterResponse: the extra notification the target sends once
// each result is written is a violation, one per call: on stdio, and on a 2025
// HTTP session, where the target sends it through the session and so on
// the standalone GET stream, which the session must open to see it.
func TestProgressAfterResponse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, target, protocol string }{
		{name: "stdio", target: "{transport: stdio, progress_after_response: true}", protocol: "auto"},
		{name: "2025 http", target: "{transport: http, progress_after_response: true}", protocol: "2025-11-25"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sc := runtest.Parse(t, `
name: after-response
seed: 6
target:
  builtin: `+tc.target+`
protocol: `+tc.protocol+`
load: {rate: 10/1s, duration: 1s}
timeouts: {idle: 10s, max: 20s}
calls:
  - {tool: slow_task, arguments: {steps: 3, step_ms: 50}, progress: true}
orphans: {grace: 200ms, drain_max: 300ms}
`)
			plan := planOf(t, sc)
			quick(&plan)
			o := runPlan(t, sc, plan)
			s := o.Sum
			if s.Calls.OK != s.Calls.Total {
				t.Fatalf("calls.ok = %d of %d", s.Calls.OK, s.Calls.Total)
			}
			if got := s.Progress.Violations.AfterResponse; got == 0 || got != s.Calls.OK {
				t.Errorf("progress.violations.after_response = %d, want one per call (%d)", got, s.Calls.OK)
			}
			if v := o.verdict(t, report.AreaProgress); v.Status != report.StatusViolation {
				t.Errorf("progress verdict = %q (%s), want violation", v.Status, v.Evidence)
			}
			c := s.Protocol.Connection
			if tc.protocol != "auto" && (c.GetStreams < 1 || c.OtherStream != int64(s.Calls.OK)) {
				t.Errorf("protocol.connection get_streams %d, other_stream %d; want >= 1 and one per call (%d)", c.GetStreams, c.OtherStream, s.Calls.OK)
			}
		})
	}
}
