//go:build timing

package e2e

import "testing"

// TestTimingTimeoutCapError: the 3 s cap of timeoutCap is enforced well
// within 500 ms of its deadline.
func TestTimingTimeoutCapError(t *testing.T) {
	te := timeoutCap(t, "http").Sum.Latency.TimeoutError
	if te.Count == 0 || te.P99 > 500 {
		t.Errorf("latency_ms.timeout_error = %+v, want recorded and p99 well under 500ms", te)
	}
}

// TestTimingFloodRate: the target's 200 notifications a second are
// measured as about that rate (at least 150 Hz).
func TestTimingFloodRate(t *testing.T) {
	if hz := floods(t, "http").Sum.Progress.MaxRateHz; hz < 150 {
		t.Errorf("progress.max_rate_hz = %d, want about 200 (at least 150)", hz)
	}
}
