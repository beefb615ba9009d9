package faults_test

import (
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/report"
)

// timingScenario: 200 calls of 300 ms, each cancelled 100 ms after its
// send. No progress, so the run itself stays light.
const timingScenario = `
name: cancel-timing
seed: 47
target: {builtin: {transport: http}}
load: {rate: 100/1s, duration: 2s}
timeouts: {idle: 5s, max: 10s}
calls:
  - {tool: slow_task, arguments: {steps: 1, step_ms: 300}, progress: false}
faults:
  - {kind: cancel, after: 100ms}
orphans: {grace: 200ms}
`

// TestCancelTiming: a fault acts at its scheduled time, never before.
// 200 cancels at a fixed 100 ms after the send are each scheduled exactly
// then, none acts early, and the summary's timing error is the records'.
// How small that error is, is the timing tier's (TestTimingCancelError).
func TestCancelTiming(t *testing.T) {
	t.Parallel()
	cancelTiming(t)
}

// cancelTiming runs timingScenario, checks every cancel's schedule, and
// returns the summary's timing error.
func cancelTiming(t *testing.T) report.TimingError {
	t.Helper()
	o := runYAML(t, timingScenario, opts{})
	inj := o.injected("cancel")
	fs := o.fault("cancel")
	if len(inj) < 190 || fs.Injected != len(inj) {
		t.Fatalf("faults.cancel.injected = %d, records carry %d; want about 200", fs.Injected, len(inj))
	}
	var worst int64
	for _, rf := range inj {
		r, f := rf.rec, rf.f
		if off := time.Duration(f.ScheduledUs-r.SentUs) * time.Microsecond; off < 100*time.Millisecond-time.Microsecond || off > 100*time.Millisecond+time.Microsecond {
			t.Errorf("seq %d: scheduled %s after the send, want 100ms", r.Seq, off)
		}
		if f.ErrorUs < 0 {
			t.Errorf("seq %d: acted %dµs before its time", r.Seq, -f.ErrorUs)
		}
		worst = max(worst, f.ErrorUs)
	}
	te := fs.TimingErrorMs
	t.Logf("faults.cancel.timing_error_ms: p50 %.3f, p99 %.3f, max %.3f", te.P50, te.P99, te.Max)
	// The summary's figures are the records' (HdrHistogram keeps 3
	// significant digits).
	if te.P50 > te.P99 || te.P99 > te.Max || te.Max == 0 || d(te.Max, float64(worst)/1000) > 0.01*te.Max+0.001 {
		t.Errorf("faults.cancel.timing_error_ms = %+v, the records' worst %dµs: want 0 < p50 ≤ p99 ≤ max = the worst", te, worst)
	}
	return te
}

func d(a, b float64) float64 {
	if a > b {
		return a - b
	}
	return b - a
}
