package faults_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// TestDisconnectCorrectServer: on 2026 HTTP a correct server treats a
// dropped connection (FIN or RST) mid-progress as a cancel: the calls end
// disconnected, nothing keeps running, and later calls succeed.
func TestDisconnectCorrectServer(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"rst", "fin"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			o := runYAML(t, fmt.Sprintf(`
name: disconnect-correct
seed: 11
target: {builtin: {transport: http}}
load: {rate: 20/1s, duration: 1500ms}
timeouts: {idle: 5s, max: 10s}
calls:
  - {tool: slow_task, arguments: {steps: 10, step_ms: 50}, progress: true}
faults:
  - {kind: disconnect, probability: 0.5, after_progress: 2, mode: %s}
orphans: {grace: 500ms}
`, mode), opts{})
			o.expectCorrect(t, "disconnect", report.StatusPass)
			inj := o.injected("disconnect")
			for _, rf := range inj {
				r, f := rf.rec, rf.f
				if f.Detail != mode || r.Outcome != results.Disconnected || r.CancelReason != "fault:disconnect" {
					t.Errorf("seq %d: detail %q, outcome %q, reason %q; want %s, disconnected, fault:disconnect",
						r.Seq, f.Detail, r.Outcome, r.CancelReason, mode)
				}
				// after_progress: 2 acts right after the second notification:
				// on HTTP, before the call's stream is read any further.
				if r.Progress == nil || r.Progress.Count != 2 {
					t.Errorf("seq %d: progress %+v before the disconnect, want exactly 2 notifications", r.Seq, r.Progress)
				}
			}
			if s := o.tg.Server.Stats(); s.Orphaned != 0 || s.Cancelled < int64(len(inj))*9/10 {
				t.Errorf("target stats %+v: want no orphan and (about) every disconnect seen as a cancel (%d)", s, len(inj))
			}
		})
	}
}

// TestDisconnectNoPropagate: a server that does not tie its handlers to the
// request (propagate_cancel: false) leaves disconnected calls running. In
// 2026-07-28 that is a violation ("a disconnect is a cancel"); in the 2025
// revisions a disconnect is not a cancel, and the same leftover work is
// expected legacy behaviour.
func TestDisconnectNoPropagate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, mode, protocol, era, want string
	}{
		{"2026/rst", "rst", "2026-07-28", "dual", report.StatusViolation},
		{"2026/fin", "fin", "auto", "2026", report.StatusViolation},
		{"2025/rst", "rst", "2025-11-25", "dual", report.StatusLegacy},
		{"2025/fin", "fin", "2025-11-25", "2025", report.StatusLegacy},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// 20 calls of 3 s, each disconnected after its second
			// progress notification: all still running when the probes
			// look, about 1.7 s in.
			o := runYAML(t, fmt.Sprintf(`
name: disconnect-no-propagate
seed: 13
protocol: %s
target: {builtin: {transport: http, era: %s, propagate_cancel: false}}
load: {rate: 20/1s, duration: 1s}
timeouts: {idle: 10s, max: 20s}
calls:
  - {tool: slow_task, arguments: {steps: 30, step_ms: 100}, progress: true}
faults:
  - {kind: disconnect, after_progress: 2, mode: %s}
orphans: {grace: 500ms, drain_max: 300ms}
`, tc.protocol, tc.era, tc.mode), opts{})
			s := o.Sum
			wantEra := tc.protocol
			if wantEra == "auto" {
				wantEra = "2026-07-28" // what a 2026-only target negotiates
			}
			if s.Era != wantEra {
				t.Fatalf("era %q, want %s", s.Era, wantEra)
			}
			n := s.Calls.Disconnected
			if n < 15 || o.fault("disconnect").Injected != n {
				t.Errorf("%d calls disconnected, faults.disconnect.injected %d: want about 20, equal", n, o.fault("disconnect").Injected)
			}
			if s.Cancellation.Orphaned != float64(n) {
				t.Errorf("cancellation.orphaned = %v, want every disconnected call (%d) (by probe %v)", s.Cancellation.Orphaned, n, s.Cancellation.ByProbe)
			}
			v := o.verdict(report.AreaCancellation)
			if v.Status != tc.want {
				t.Errorf("cancellation verdict %q (%s), want %q", v.Status, v.Evidence, tc.want)
			}
			if tc.want == report.StatusViolation {
				if !strings.Contains(v.Evidence, "a disconnect is a cancel") {
					t.Errorf("verdict evidence %q does not say that from 2026-07-28 a disconnect is a cancel", v.Evidence)
				}
				// The target's own count: each disconnect it outlived.
				if got := o.tg.Server.Stats().Orphaned; got != int64(n) {
					t.Errorf("target's orphaned_total = %d, want %d", got, n)
				}
			}
			if t.Failed() {
				o.dump(t)
			}
		})
	}
}

// TestDisconnectStdio: on stdio a disconnect closes the server's stdin or
// kills its process group; the process is started again for later calls,
// which succeed, and the run goes on to its end.
func TestDisconnectStdio(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"close", "kill"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			o := runYAML(t, fmt.Sprintf(`
name: disconnect-stdio
seed: 17
target: {builtin: {transport: stdio}}
load: {rate: 10/1s, duration: 4s}
timeouts: {idle: 30s, max: 60s}
calls:
  - {tool: slow_task, arguments: {steps: 5, step_ms: 40}, progress: true}
faults:
  - {kind: disconnect, probability: 0.15, after: 100ms, mode: %s}
orphans: {grace: 300ms}
`, mode), opts{})
			s := o.Sum
			inj := o.injected("disconnect")
			if len(inj) == 0 || s.Faults["disconnect"].Injected != len(inj) {
				t.Fatalf("faults.disconnect.injected = %d, records carry %d; want > 0, equal", s.Faults["disconnect"].Injected, len(inj))
			}
			for _, rf := range inj {
				if rf.f.Detail != mode || rf.rec.Outcome != results.Disconnected {
					t.Errorf("seq %d: detail %q, outcome %q; want %s, disconnected", rf.rec.Seq, rf.f.Detail, rf.rec.Outcome, mode)
				}
			}
			if o.Info.Restarts == 0 {
				t.Errorf("no server restart after %d disconnects", len(inj))
			}
			// A call sent after a disconnect cannot have gone to the
			// process that was cut: an ok one proves the restarted server
			// works. (Calls sent before the client saw the cut process
			// exit fail with it: on a starved machine that took seconds,
			// hence a 4 s load.)
			if n := o.okAfter(o.firstFault("disconnect")); n == 0 {
				t.Errorf("no ok call after the first disconnect")
			}
			if v := s.Protocol.Violations; v.Total != 0 {
				t.Errorf("protocol.violations = %+v, want none", v)
			}
			if t.Failed() {
				o.dump(t)
			}
		})
	}
}

// TestDisconnectKillOtherCalls: killing a stdio server ends every call on
// it. Those calls are transport errors, and a fault drawn for one of them
// whose moment comes later is skipped ("the call ended first"), never
// acted on the dead call, which would make it a cancel.
func TestDisconnectKillOtherCalls(t *testing.T) {
	t.Parallel()
	o := runYAML(t, `
name: kill-then-cancel
seed: 5
target: {builtin: {transport: stdio}}
load: {rate: 20/1s, duration: 1500ms}
timeouts: {idle: 5s, max: 10s}
calls:
  - {tool: slow_task, arguments: {steps: 10, step_ms: 50}, progress: true}
faults:
  - {kind: disconnect, probability: 0.1, after: 50ms, mode: kill}
  - {kind: cancel, after: 300ms}
orphans: {grace: 300ms}
`, opts{})
	s := o.Sum
	if s.Faults["disconnect"].Injected == 0 || s.Calls.TransportError == 0 {
		t.Fatalf("faults.disconnect.injected = %d, calls.transport_error = %d: want a kill that took other calls with it",
			s.Faults["disconnect"].Injected, s.Calls.TransportError)
	}
	for _, r := range o.Recs {
		killed := strings.Contains(r.Error, "server exited")
		for _, f := range r.Faults {
			if f.Kind != "cancel" {
				continue
			}
			if killed && !f.Skipped {
				t.Errorf("seq %d: its server was killed (%s), then a cancel acted on it (%q); outcome %q", r.Seq, r.Error, f.Detail, r.Outcome)
			}
			if !f.Skipped && f.Detail != "notifications/cancelled sent" {
				t.Errorf("seq %d: cancel detail %q, want a cancel that was sent", r.Seq, f.Detail)
			}
		}
		if killed && r.Outcome != results.TransportError {
			t.Errorf("seq %d: its server was killed (%s); outcome %q, want transport_error", r.Seq, r.Error, r.Outcome)
		}
	}
	if s.Calls.Cancelled != s.Faults["cancel"].Injected {
		t.Errorf("calls.cancelled = %d, faults.cancel.injected = %d: want one cancelled call per cancel that acted", s.Calls.Cancelled, s.Faults["cancel"].Injected)
	}
	if t.Failed() {
		o.dump(t)
	}
}
