//go:build timing

package e2e

import (
	"testing"

	"github.com/mcpchaos/mcpchaos/report"
)

// TestTimingVerdictAccuracySDK: the SDK's default (a handler that burns on
// after its stream closed) is a violation whose quiet windows' leftover
// estimate is within 30% of the server's own count: a measurement of CPU
// the server gets only on a machine with CPU to give.
func TestTimingVerdictAccuracySDK(t *testing.T) {
	accuracySDK(t, "burn/runs-on", false, false, report.StatusViolation)
}

// TestTimingVerdictAccuracyBuiltin: the same with the built-in target's
// burn_cpu and propagate_cancel false, against its leftover CPU counter.
func TestTimingVerdictAccuracyBuiltin(t *testing.T) {
	accuracyBuiltin(t, "burn/runs-on", "era=2026,burn_cpu=true,propagate_cancel=false", report.StatusViolation)
}

// TestTimingVerdictAccuracySleep: a handler that sleeps on after its
// cancel costs too little CPU for a process probe to see (under 0.05
// CPU-s per call-second), so the verdict is not_observable. It is a
// figure about CPU: the race-built target on a loaded machine spends more
// than that on its sleeping calls' wake-ups, and the probe then takes the
// work for visible (it was in the default tier and failed there).
func TestTimingVerdictAccuracySleep(t *testing.T) {
	accuracyBuiltin(t, "sleep/runs-on", "era=2026,propagate_cancel=false", report.StatusNotObservable)
}
