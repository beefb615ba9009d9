//go:build timing

package faults_test

import "testing"

// TestTimingBackgroundRate: notify_flood and cancel_unknown keep their
// rate for the whole load: injected within 80-110% of rate × duration.
func TestTimingBackgroundRate(t *testing.T) {
	for _, transport := range []string{"http", "stdio"} {
		t.Run(transport, func(t *testing.T) {
			s := runBackground(t, transport).Sum
			for _, bg := range []struct {
				kind string
				want int // rate × duration
			}{{"notify_flood", 100}, {"cancel_unknown", 80}} {
				if n := s.Faults[bg.kind].Injected; n < bg.want*8/10 || n > bg.want*11/10 {
					t.Errorf("faults.%s.injected = %d, want about %d (rate × duration)", bg.kind, n, bg.want)
				}
			}
		})
	}
}
