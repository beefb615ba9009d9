//go:build timing

package engine

import (
	"testing"
	"time"
)

// maxTimeoutErr bounds how late a timeout may be enforced. A timer on a
// loaded 2-core machine under -race can fire late; a timeout enforced one
// idle period late (a deadline that was not reset right) is not tolerated.
const maxTimeoutErr = 500 * time.Millisecond

// TestTimingTimeoutError: a cap of 800 ms is enforced within
// maxTimeoutErr of its deadline.
func TestTimingTimeoutError(t *testing.T) {
	recs, _ := capTimeout(t, 800*time.Millisecond)
	for _, r := range recs {
		if r.TimeoutErrUs < 0 || r.TimeoutErrUs > maxTimeoutErr.Microseconds() {
			t.Errorf("seq %d: timeout error %dµs, want 0 to %s", r.Seq, r.TimeoutErrUs, maxTimeoutErr)
		}
	}
}
