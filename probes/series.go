package probes

import (
	"math"
	"time"

	"github.com/mcpchaos/mcpchaos/series"
)

// Point is one sample of a probe (or one change of the client's own
// in-flight count): a point of a step series (package series, whose
// LeakedCallSeconds measures work nobody waits for).
type Point = series.Point

// Above returns how far v is above baseline, never negative: the work a
// probe still sees beyond what the server did before the load.
func Above(v, baseline float64) float64 {
	if d := v - baseline; d > 0 {
		return d
	}
	return 0
}

// DrainTime returns the earliest time at or after after at which series
// was at or below baseline, and false when it never was (still draining,
// or leaking). The points need not be sorted; NaN values (failed samples)
// are ignored.
func DrainTime(series []Point, baseline float64, after time.Time) (time.Time, bool) {
	var at time.Time
	found := false
	for _, p := range series {
		if math.IsNaN(p.V) || p.T.Before(after) || p.V > baseline {
			continue
		}
		if !found || p.T.Before(at) {
			at, found = p.T, true
		}
	}
	return at, found
}

// LeftoverCPU returns the CPU seconds a process probe saw between two of
// its samples (typically the quiet window after the load and grace),
// never negative: a tree that lost a process not reaped inside it can show
// less CPU time than before.
func LeftoverCPU(before, after ProcessSample) float64 {
	return Above(after.CPUSeconds, before.CPUSeconds)
}
