package faults_test

import (
	"slices"
	"sync"
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

// timingBound is the p99 timing error a fault may show: generous, for a
// busy machine under the race detector (the precise figure is the
// benchmarks' business).
const timingBound = 20 * time.Millisecond

// TestCancelTiming: a fault acts close to its scheduled time. 200 cancels
// at a fixed 100 ms after the send are each scheduled exactly then, never
// act early, and the recorded timing error stays small: p99 under
// timingBound.
//
// A machine shared with other work (CI runs several packages' tests at
// once) can starve every timer of the process for tens of milliseconds. So
// the test also measures the runtime's own timers during the run, at the
// same pace; when even they are late, the bound is what they achieved plus
// timingBound (an engine that adds lateness of its own still fails). One
// bad run is retried once.
//
// Not parallel: it measures timers, so it runs before the parallel tests
// start.
func TestCancelTiming(t *testing.T) {
	te, bound := cancelTiming(t)
	if te.P99 >= ms(bound) {
		t.Logf("p99 %.3fms ≥ %s: trying once more", te.P99, bound)
		te, bound = cancelTiming(t)
	}
	if te.P99 >= ms(bound) {
		t.Errorf("faults.cancel.timing_error_ms = %+v, want p99 < %s", te, bound)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// controlTimers arms a runtime timer for 100 ms every 10 ms until stop is
// closed, and returns how late they fired.
func controlTimers(stop <-chan struct{}) <-chan []time.Duration {
	out := make(chan []time.Duration, 1)
	go func() {
		var mu sync.Mutex
		var wg sync.WaitGroup
		var late []time.Duration
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				wg.Wait()
				out <- late
				return
			case <-tick.C:
			}
			due := time.Now().Add(100 * time.Millisecond)
			wg.Add(1)
			time.AfterFunc(time.Until(due), func() {
				defer wg.Done()
				d := time.Since(due)
				mu.Lock()
				late = append(late, d)
				mu.Unlock()
			})
		}
	}()
	return out
}

// cancelTiming runs timingScenario, checks every cancel's schedule, and
// returns the summary's timing error.
func cancelTiming(t *testing.T) (report.TimingError, time.Duration) {
	t.Helper()
	stop := make(chan struct{})
	control := controlTimers(stop)
	o := runYAML(t, timingScenario, opts{})
	close(stop)
	late := <-control
	slices.Sort(late)
	bound := timingBound
	if len(late) > 0 {
		p99 := late[len(late)*99/100]
		t.Logf("runtime timers during the run: %d, p50 %s, p99 %s", len(late), late[len(late)/2], p99)
		if p99 > timingBound/2 {
			bound = p99 + timingBound
			t.Logf("the machine starved even the runtime's timers: the bound is %s", bound)
		}
	}
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
	return te, bound
}

func d(a, b float64) float64 {
	if a > b {
		return a - b
	}
	return b - a
}
