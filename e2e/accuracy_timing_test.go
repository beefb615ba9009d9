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
