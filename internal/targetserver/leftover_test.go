package targetserver

import (
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// TestLeftoverWork: the leftover counters are the ground truth of work
// done after a cancel. A call that stops at its cancel adds nothing, not
// even the slice it was burning; a leaked, late-stopping or not-told call
// adds the CPU it burnt (read from its thread's own clock, so at most the
// time it ran) or, sleeping, only the time it ran. /metrics exports the
// same numbers.
func TestLeftoverWork(t *testing.T) {
	http2026, stdio := transports[0], transports[2]
	tests := []struct {
		name    string
		tr      transport
		cfg     Config
		cpu     bool          // leftover CPU expected
		busyMin time.Duration // least leftover time expected; 0: none at all
	}{
		{"stops at its cancel/stdio", stdio, Config{BurnCPU: true}, false, 0},
		{"stops at its cancel/http 2026", http2026, Config{BurnCPU: true}, false, 0},
		{"leaks, burning/stdio", stdio, Config{BurnCPU: true, LeakOnCancel: 1}, true, 200 * time.Millisecond},
		{"leaks, sleeping/stdio", stdio, Config{LeakOnCancel: 1}, false, 200 * time.Millisecond},
		{"stop delay, burning/stdio", stdio, Config{BurnCPU: true, StopDelay: 250 * time.Millisecond}, true, 250 * time.Millisecond},
		{"not told of the disconnect/http 2026", http2026, Config{BurnCPU: true, NoPropagateCancel: true}, true, 200 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, cs, metricsURL := tc.tr.start(t, tc.cfg, nil)
			// 300 ms of work (12 steps of 25 ms): whatever runs on after
			// the cancel is at least the 200 ms the cases expect.
			cancel, done := startLongCall(t, s, cs, map[string]any{"steps": 12, "step_ms": 25}, "lo")
			cancel()
			<-done
			testutil.Eventually(t, "the call to end", func() bool { return s.Stats().Inflight == 0 })
			st := s.Stats()
			t.Logf("leftover CPU %v, busy %v", st.LeftoverCPU, st.LeftoverBusy)
			switch {
			case tc.busyMin == 0 && (st.LeftoverCPU != 0 || st.LeftoverBusy != 0):
				t.Errorf("leftover CPU %v, busy %v; want none from a call that stopped at its cancel", st.LeftoverCPU, st.LeftoverBusy)
			case tc.busyMin > 0 && st.LeftoverBusy < tc.busyMin:
				t.Errorf("leftover busy %v, want at least %v", st.LeftoverBusy, tc.busyMin)
			case tc.cpu && st.LeftoverCPU <= 0:
				t.Errorf("leftover CPU %v, want the burn after the cancel counted", st.LeftoverCPU)
			case !tc.cpu && st.LeftoverCPU != 0:
				t.Errorf("leftover CPU %v, want none from sleeping work", st.LeftoverCPU)
			case st.LeftoverCPU > st.LeftoverBusy+10*time.Millisecond:
				t.Errorf("leftover CPU %v is more than the %v the call ran after its cancel", st.LeftoverCPU, st.LeftoverBusy)
			}
			m := testutil.MustScrape(t, metricsURL)
			for name, want := range map[string]time.Duration{
				"mcpchaos_target_leftover_cpu_seconds_total": st.LeftoverCPU,
				"mcpchaos_target_leftover_seconds_total":     st.LeftoverBusy,
			} {
				if got, ok := m[name]; !ok || got != want.Seconds() {
					t.Errorf("/metrics %s = %v (present %t), want %v", name, got, ok, want.Seconds())
				}
			}
		})
	}
}
