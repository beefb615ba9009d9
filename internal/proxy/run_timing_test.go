//go:build timing

package proxy_test

import (
	"testing"
	"time"
)

// TestTimingRunClientCancelsAtCap: the proxy sees each call of
// TestRunClientCancelsAtCap cancelled about 2s after it came. The issue
// names a bound of 100ms around 2s; BenchmarkProxyCancelAtCap measures
// that (docs/performance.md). The bounds here are wider on both sides: a
// send that lags the schedule makes the proxy see the cancel that much
// before 2s (1.974s was seen on an idle machine). The floor is 1.5s, the
// ceiling 3s (2.000s..2.002s on an idle machine).
func TestTimingRunClientCancelsAtCap(t *testing.T) {
	recs := runCancelsAtCap(t)
	const floor, ceiling = 2*time.Second - 500*time.Millisecond, 2*time.Second + time.Second
	lo, hi := time.Hour, time.Duration(0)
	for _, rec := range recs {
		d := time.Duration(rec.CancelAfterMs * float64(time.Millisecond))
		lo, hi = min(lo, d), max(hi, d)
		if d < floor || d > ceiling {
			t.Errorf("call %d cancelled after %v, want %v..%v", rec.Seq, d, floor, ceiling)
		}
	}
	t.Logf("cancelled after %v..%v", lo, hi)
}
