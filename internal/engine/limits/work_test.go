package limits

import (
	"strings"
	"testing"
	"time"
)

// TestRefusalWork: the hold's CPU above idle, less the accepted calls'
// share, per refused call: costly at 2 ms or more beyond an accepted
// call and over twice one, none below, unknown without readings or refusals, or
// with too little CPU to tell.
func TestRefusalWork(t *testing.T) {
	s := time.Second
	read := func(hold, idle, step float64, stepCalls int) workProbe {
		return workProbe{probe: "process", holdCPU: hold, holdD: 4 * s, idleCPU: idle, idleD: 2 * s,
			stepCPU: step, stepD: 2 * s, stepCalls: stepCalls}
	}
	tests := []struct {
		name              string
		w                 workProbe
		accepted, refused int
		want              string
		wantMs            float64 // -1: nil
		why               string
	}{
		{"no process probe", workProbe{err: "no process probe"}, 80, 80, "unknown", -1, "no process probe"},
		{"no idle span", workProbe{probe: "process", holdCPU: 1, holdD: 4 * s}, 80, 80, "unknown", -1, "idle span"},
		{"nothing refused", read(1, 0.02, 0.04, 40), 80, 0, "unknown", -1, "no call of the hold was refused"},
		// 4 s hold: 40 ms idle, 80 accepted at 1 ms: 80 ms; 1 s left for
		// 100 refusals.
		{"refusals burn 10 ms", read(1.12, 0.02, 0.06, 40), 80, 100, "costly", 10, "2ms or more beyond"},
		// The same server refusing at the cost of an accepted call.
		{"refusals cost what a call does", read(0.22, 0.02, 0.06, 40), 80, 100, "none", 1, "under 2ms"},
		// Under a race detector every call costs 5 ms: refusals too.
		{"slow calls, refusals no dearer", read(0.94, 0.02, 0.22, 40), 80, 100, "none", 5, "under twice"},
		// A loaded machine's race-built target: refusals at 2.67 ms, calls
		// at 1.10 (idle 10 ms/s): over twice a call's but 1.57 ms beyond.
		{"refusals dearer by under 2 ms", read(0.395, 0.02, 0.064, 40), 80, 100, "none", 2.67, "under 2ms more than"},
		{"too few refusals to tell", read(0.04, 0.02, 0.02, 40), 80, 5, "unknown", -1, "too few refusals"},
		{"little CPU over many refusals", read(0.06, 0.02, 0.02, 40), 80, 100, "none", 0.2, "under 2ms"},
		{"idle above the hold reads no work", read(0.01, 0.04, 0.02, 40), 80, 100, "none", 0, "under 2ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ms, why := refusalWork(tt.w, tt.accepted, tt.refused)
			if got != tt.want || !strings.Contains(why, tt.why) {
				t.Errorf("refusal_work %q (%s), want %q with %q", got, why, tt.want, tt.why)
			}
			switch {
			case tt.wantMs < 0 && ms != nil:
				t.Errorf("refusal_cpu_ms %v, want nil", *ms)
			case tt.wantMs >= 0 && (ms == nil || *ms < tt.wantMs-0.05 || *ms > tt.wantMs+0.05):
				t.Errorf("refusal_cpu_ms %v, want %v", ms, tt.wantMs)
			}
		})
	}
}
