package faults_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// TestCancelCorrectServer: against a correct server a cancel is injected at
// its drawn time (from the send, within the distribution), the call ends
// cancelled, and nothing is left: no orphan, no work after the cancel, no
// violation, and later calls succeed.
func TestCancelCorrectServer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		transport, detail string
	}{
		{"http", "stream closed"},
		{"stdio", "notifications/cancelled sent"},
	} {
		t.Run(tc.transport, func(t *testing.T) {
			t.Parallel()
			o := runYAML(t, fmt.Sprintf(`
name: cancel-correct
seed: 7
target: {builtin: {transport: %s}}
load: {rate: 20/1s, duration: 1500ms}
timeouts: {idle: 5s, max: 10s}
calls:
  - {tool: slow_task, arguments: {steps: 10, step_ms: 50}, progress: true}
faults:
  - {kind: cancel, probability: 0.5, after: "uniform(50ms, 300ms)"}
orphans: {grace: 2s} # graces a starved machine keeps: a correct server's
progress: {grace: 2s} # progress and stop came over a second after a cancel
`, tc.transport), opts{})
			o.expectCorrect(t, "cancel", report.StatusPass)
			inj := o.injected("cancel")
			if got := o.fault("cancel").Injected; got != len(inj) || got == 0 {
				t.Errorf("faults.cancel.injected = %d, records carry %d", got, len(inj))
			}
			for _, rf := range inj {
				r, f := rf.rec, rf.f
				after := time.Duration(f.ScheduledUs-r.SentUs) * time.Microsecond
				if after < 50*time.Millisecond-time.Microsecond || after > 300*time.Millisecond+time.Microsecond {
					t.Errorf("seq %d: cancel scheduled %s after the send, want within uniform(50ms, 300ms)", r.Seq, after)
				}
				// The offsets are truncated separately: ±1µs.
				if d := f.ErrorUs - (f.ActualUs - f.ScheduledUs); d < -1 || d > 1 || f.ErrorUs < 0 {
					t.Errorf("seq %d: timing error %dµs, actual %d − scheduled %d", r.Seq, f.ErrorUs, f.ActualUs, f.ScheduledUs)
				}
				if f.Detail != tc.detail {
					t.Errorf("seq %d: detail %q, want %q", r.Seq, f.Detail, tc.detail)
				}
				if r.Outcome != results.Cancelled || r.CancelReason != "fault:cancel" {
					t.Errorf("seq %d: outcome %q, reason %q; want cancelled by fault:cancel", r.Seq, r.Outcome, r.CancelReason)
				}
				// The call's cancel is the fault's: stamped once the fault
				// began to act (±1µs of truncation), before the call ended.
				// How soon after is the timing tier's and the benchmarks'
				// business (a starved machine took 450ms here).
				if r.CancelUs < f.ActualUs-1 || (r.EndUs != 0 && r.CancelUs > r.EndUs) {
					t.Errorf("seq %d: cancel at %dµs, fault scheduled %d, acted %d, call ended %d", r.Seq, r.CancelUs, f.ScheduledUs, f.ActualUs, r.EndUs)
				}
			}
			if c := o.Sum.Cancellation; c.Cancels != len(inj) {
				t.Errorf("cancellation.cancels = %d, want one per injected cancel (%d)", c.Cancels, len(inj))
			}
			// The target saw every cancel of a call it had started (on a
			// starved machine a call can be cancelled before it arrives).
			if o.tg != nil {
				if s := o.tg.Server.Stats(); s.Orphaned != 0 || s.Cancelled+int64(len(o.Recs))-s.Started < int64(len(inj)) {
					t.Errorf("target stats %+v, %d calls: want nothing orphaned and every injected cancel seen or before its call arrived", s, len(o.Recs))
				}
			}
		})
	}
}

// TestCancelLeak: a server that ignores cancels (leak_on_cancel: 1) is
// caught: every cancelled call is still running when the probes look, the
// orphan count equals the target's own count of leaked calls, and the
// verdict is a violation.
func TestCancelLeak(t *testing.T) {
	t.Parallel()
	for _, transport := range []string{"http", "stdio"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			// 30 calls of 10 s, each cancelled after 100 ms: at the
			// measurement (the last cancel plus the 500ms grace, about
			// 1.6 s in, later on a busy machine) every one of them is
			// still running.
			o := runYAML(t, fmt.Sprintf(`
name: cancel-leak
seed: 3
target: {builtin: {transport: %s, leak_on_cancel: 1}}
load: {rate: 30/1s, duration: 1s}
timeouts: {idle: 10s, max: 20s}
calls:
  - {tool: slow_task, arguments: {steps: 100, step_ms: 100}, progress: true}
faults:
  - {kind: cancel, after: 100ms}
orphans: {grace: 500ms, drain_max: 300ms}
`, transport), opts{stdioMetrics: transport == "stdio"})
			s := o.Sum
			cancelled := s.Calls.Cancelled
			if cancelled < 25 || o.fault("cancel").Injected != cancelled {
				t.Errorf("%d calls cancelled, faults.cancel.injected %d: want about 30, equal", cancelled, o.fault("cancel").Injected)
			}
			var truth, started float64
			if o.tg != nil {
				truth, started = float64(o.tg.Server.Stats().Orphaned), float64(o.tg.Server.Stats().Started)
			} else {
				truth, started = o.stdioStats["mcpchaos_target_orphaned_total"], o.stdioStats["mcpchaos_target_started_total"]
			}
			// What mcpchaos measured is the target's own count. Every
			// call the target started leaks (on a starved machine a call
			// may be cancelled before it reached the target: 24 of 30).
			if s.Cancellation.Orphaned != truth || truth > float64(cancelled) || truth != started || truth == 0 {
				t.Errorf("cancellation.orphaned = %v, target's orphaned_total %v, started %v; want them equal, at most the %d cancelled calls",
					s.Cancellation.Orphaned, truth, started, cancelled)
				t.Logf("by probe %v", s.Cancellation.ByProbe)
			}
			if v := o.verdict(report.AreaCancellation); v.Status != report.StatusViolation {
				t.Errorf("cancellation verdict %q (%s), want violation", v.Status, v.Evidence)
			}
			if t.Failed() {
				o.dump(t)
			}
		})
	}
}

// TestCancelStopDelay: a stdio server that notices a cancel only after a
// delay keeps sending progress; progress later than the cancel plus the
// progress grace is a violation, and the calls are seen working after
// their cancel.
func TestCancelStopDelay(t *testing.T) {
	t.Parallel()
	o := runYAML(t, `
name: cancel-stop-delay
seed: 5
target: {builtin: {transport: stdio, stop_delay: 800ms}}
load: {rate: 10/1s, duration: 1s}
timeouts: {idle: 10s, max: 20s}
calls:
  - {tool: slow_task, arguments: {steps: 30, step_ms: 50}, progress: true}
faults:
  - {kind: cancel, after: 100ms}
orphans: {grace: 300ms, drain_max: 2s}
progress: {grace: 200ms}
`, opts{lateWindow: 1500 * time.Millisecond})
	s := o.Sum
	if s.Progress.Violations.AfterCancel == 0 || s.Cancellation.LeftoverCalls == 0 {
		t.Errorf("progress.violations.after_cancel = %d, cancellation.leftover_calls = %d; want both > 0",
			s.Progress.Violations.AfterCancel, s.Cancellation.LeftoverCalls)
	}
	if v := o.verdict(report.AreaCancellation); v.Status != report.StatusViolation {
		t.Errorf("cancellation verdict %q (%s), want violation", v.Status, v.Evidence)
	}
	if v := o.verdict(report.AreaProgress); v.Status != report.StatusViolation || !strings.Contains(v.Evidence, "after_cancel") {
		t.Errorf("progress verdict %q (%s), want a violation naming after_cancel", v.Status, v.Evidence)
	}
	if t.Failed() {
		o.dump(t)
	}
}
