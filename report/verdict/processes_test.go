package verdict

import (
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/report/summary"
)

// TestServerProcessesVerdict: processes a stdio server left running are
// leftover work even without a cancel — the verdict is a violation that
// says so — while servers that merely needed a signal change nothing.
func TestServerProcessesVerdict(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		sp         *summary.ServerProcesses
		wantStatus string
		want       string
	}{
		{name: "none", sp: nil, wantStatus: summary.StatusNotExercised},
		{name: "signalled only", sp: &summary.ServerProcesses{Signalled: 1, Killed: 1}, wantStatus: summary.StatusNotExercised},
		{name: "leftover killed", sp: &summary.ServerProcesses{Leftover: 2}, wantStatus: summary.StatusViolation,
			want: "2 processes the server started still running after it exited (killed at the end)"},
		{name: "leftover left running", sp: &summary.ServerProcesses{Leftover: 1, LeftRunning: true}, wantStatus: summary.StatusViolation,
			want: "1 process the server started still running after it exited (left running)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &summary.Summary{Era: "2026-07-28"}
			s.Cancellation.ServerProcesses = tt.sp
			v := cancellationVerdict(s, evidence{})
			if v.Status != tt.wantStatus || !strings.Contains(v.Evidence, tt.want) {
				t.Errorf("verdict %q (%s); want %q saying %q", v.Status, v.Evidence, tt.wantStatus, tt.want)
			}
		})
	}
}
