package engine

import (
	"math"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/report"
)

func TestWindowThreshold(t *testing.T) {
	for _, tc := range []struct {
		name             string
		d                time.Duration
		idleNoise, quiet float64
		want             float64
	}{
		{"a silent server: three ticks", time.Second, 0, 0, 0.03},
		{"idle noise above the floor", time.Second, 0.02, 0, 0.07},
		{"idle noise under the floor", time.Second, 0.005, 0, 0.03},
		{"a quiet window's noise raises it", time.Second, 0, 0.05, 0.06},
		{"the larger of idle and quiet noise", 2 * time.Second, 0.01, 0.02, 0.07},
		{"a short window keeps the floor", 100 * time.Millisecond, 0.02, 0.05, 0.03},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := windowThreshold(tc.d, tc.idleNoise, tc.quiet); math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("windowThreshold(%v, %v, %v) = %v, want %v", tc.d, tc.idleNoise, tc.quiet, got, tc.want)
			}
		})
	}
}

func TestQuietNoise(t *testing.T) {
	for _, tc := range []struct {
		name string
		w    report.Window
		rate float64
		ok   bool
	}{
		{"cut nothing, under its threshold", report.Window{MeasuredMs: 500, LeftoverCPUS: 0.01, ThresholdS: 0.03}, 0.02, true},
		{"cut nothing, silent", report.Window{MeasuredMs: 1000, ThresholdS: 0.03}, 0, true},
		{"cut calls: their work is no noise", report.Window{Cancelled: 2, MeasuredMs: 1000, LeftoverCPUS: 0.01, ThresholdS: 0.03}, 0, false},
		{"above its threshold: leftover work, not noise", report.Window{MeasuredMs: 1000, LeftoverCPUS: 0.2, ThresholdS: 0.03}, 0, false},
		{"a count probe saw calls", report.Window{MeasuredMs: 1000, Orphaned: 1, ThresholdS: 0.03}, 0, false},
		{"nothing measured", report.Window{ThresholdS: 0.03}, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rate, ok := quietNoise(tc.w)
			if ok != tc.ok || math.Abs(rate-tc.rate) > 1e-9 {
				t.Errorf("quietNoise(%+v) = %v, %v; want %v, %v", tc.w, rate, ok, tc.rate, tc.ok)
			}
		})
	}
}

// TestQuietWindowRaisesLaterThresholds: a window that cut nothing measures
// the server's noise, and the windows after it must exceed it.
func TestQuietWindowRaisesLaterThresholds(t *testing.T) {
	pr := &probeRun{}
	before := pr.windowThreshold(time.Second)
	pr.addWindow(report.Window{MeasuredMs: 1000, LeftoverCPUS: 0.02, ThresholdS: before})
	pr.addWindow(report.Window{Cancelled: 3, MeasuredMs: 1000, LeftoverCPUS: 0.5, ThresholdS: before}) // a leak: no noise
	after := pr.windowThreshold(time.Second)
	if math.Abs(before-0.03) > 1e-9 || math.Abs(after-0.03) > 1e-9 {
		t.Errorf("thresholds %v before and %v after a quiet window of 20 ms: want 0.03 both (under the floor)", before, after)
	}
	pr.addWindow(report.Window{MeasuredMs: 500, LeftoverCPUS: 0.025, ThresholdS: 0.03})
	if got := pr.windowThreshold(time.Second); math.Abs(got-0.06) > 1e-9 {
		t.Errorf("threshold after a quiet window of 25 ms in 500 ms = %v, want 0.06 (50 ms/s × 1 s + a tick)", got)
	}
	if w := pr.windows; w.Quiet != 2 || math.Abs(w.QuietNoiseRate-0.05) > 1e-9 || w.Above != 1 {
		t.Errorf("windows = quiet %d, noise rate %v, above %d; want 2, 0.05, 1", w.Quiet, w.QuietNoiseRate, w.Above)
	}
}
