//go:build timing

package targetserver

import "testing"

// TestTimingProgressFlood: about 50 floods in the call's 0.5 s (at least
// 20; the bound is loose for busy machines).
func TestTimingProgressFlood(t *testing.T) {
	for _, tr := range []transport{transports[0], transports[2]} {
		t.Run(tr.name, func(t *testing.T) {
			if v, elapsed := progressFlood(t, tr); len(v) < 5+20 {
				t.Errorf("%d notifications in %v, want at least 25", len(v), elapsed)
			}
		})
	}
}
