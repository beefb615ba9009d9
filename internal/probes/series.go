package probes

import "github.com/mcpchaos/mcpchaos/internal/series"

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

// LeftoverCPU returns the CPU seconds a process probe saw between two of
// its samples (typically the quiet window after the load and grace),
// never negative: a tree that lost a process not reaped inside it can show
// less CPU time than before.
func LeftoverCPU(before, after ProcessSample) float64 {
	return Above(after.CPUSeconds, before.CPUSeconds)
}
