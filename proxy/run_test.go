package proxy_test

import (
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// TestRunClientCancelsAtCap puts `mcpchaos run` (timeouts idle 1s, max
// 2s) behind progress_endless: progress every 250ms keeps resetting the
// idle timeout, so only the cap ends each call, and the proxy must see
// every call cancelled by a closed stream about 2s after it arrived.
//
// The issue names a bound of 100ms around 2s; BenchmarkProxyCancelAtCap
// measures that (docs/performance.md). This test asserts wider bounds on
// both sides, as the suite runs on a busy 2-core machine: the client's
// cap counts from when it meant to send, the proxy measures from when the
// call arrived, so a send that lags the schedule by more than 100ms makes
// the proxy see the cancel that much before 2s (1.974s was seen on an
// idle machine). The floor is 1.5s, the ceiling 3s; the measured spread
// is logged (2.000s..2.002s on an idle machine).
func TestRunClientCancelsAtCap(t *testing.T) {
	r := startProxy(t, "1m", "  - {kind: progress_endless, every: 250ms}\n")
	out := runScenario(t, `name: through-proxy
target:
  http: {url: "`+r.url+`"}
load:
  rate: 4/1s
  duration: 2s
timeouts: {idle: 1s, max: 2s}
calls:
  - {tool: slow_task, arguments: {steps: 2, step_ms: 50}, progress: true}
`, nil)
	r.stop()
	recs := r.p.Records()
	sum := r.p.Summary().Clients
	if sum.Calls == 0 || sum.Cancelled != sum.Calls || sum.CancelledByClose != sum.Calls || sum.NeverCancelled != 0 {
		t.Fatalf("want every call cancelled by a closed stream, got %+v\n%s\nrun said:\n%s", sum, dump(recs), out)
	}
	const floor, ceiling = 2*time.Second - 500*time.Millisecond, 2*time.Second + time.Second
	lo, hi := time.Hour, time.Duration(0)
	for _, rec := range recs {
		d := time.Duration(rec.CancelAfterMs * float64(time.Millisecond))
		lo, hi = min(lo, d), max(hi, d)
		if d < floor || d > ceiling {
			t.Errorf("call %d cancelled after %v, want %v..%v", rec.Seq, d, floor, ceiling)
		}
	}
	t.Logf("%d calls cancelled after %v..%v (p50 %.1fms, p99 %.1fms); issue's bound 2s±100ms", sum.Calls, lo, hi, sum.CancelAfterMs.P50, sum.CancelAfterMs.P99)
}

// TestCancelPassesThrough puts the proxy, with no fault, in front of the
// built-in target as a gateway would stand: `mcpchaos run` cancels long
// calls at its 2s cap by closing their streams (the 2026 cancel), and the
// target's own counters show every one of those calls cancelled there
// too, none left running.
func TestCancelPassesThrough(t *testing.T) {
	r := startProxy(t, "1m", "  []\n")
	runScenario(t, `name: gateway
target:
  http: {url: "`+r.url+`"}
load:
  rate: 3/1s
  duration: 1s
timeouts: {idle: 1s, max: 2s}
calls:
  - {tool: slow_task, arguments: {steps: 40, step_ms: 100}, progress: true}
`, nil)
	sum := r.p.Summary().Clients
	if sum.Calls == 0 || sum.CancelledByClose != sum.Calls {
		t.Fatalf("want every call cancelled by a closed stream, got %+v", sum)
	}
	testutil.Eventually(t, "the target to see every cancel", func() bool {
		st := r.target.Server.Stats()
		return st.Cancelled == sum.Calls && st.Inflight == 0
	})
	if st := r.target.Server.Stats(); st.Completed != 0 || st.Orphaned != 0 {
		t.Errorf("target: %+v, want no call completed or orphaned", st)
	}
}
