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
