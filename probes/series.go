package probes

import (
	"math"
	"slices"
	"time"
)

// Point is one sample of a probe (or one change of the client's own
// in-flight count).
type Point struct {
	T time.Time
	V float64
}

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

// LeakedCallSeconds integrates max(0, (server(t) − baseline) − client(t))
// over time: the server's in-flight work beyond both its baseline and the
// calls the client still waits for, i.e. work nobody waits for, in
// call-seconds. server is a probe's series (e.g. an in-flight gauge),
// client the client's own in-flight count.
//
// Both are step series, integrated by the step rule, which is exact for
// them: a value holds from its point until the next point of the same
// series, and the last value holds on. The integral runs from the later of
// the two first points to the server's last point (beyond it the server is
// unknown). Points need not be sorted; NaN values (failed samples) are
// dropped.
func LeakedCallSeconds(server, client []Point, baseline float64) float64 {
	s, c := steps(server), steps(client)
	if len(s) == 0 || len(c) == 0 {
		return 0
	}
	t := s[0].T
	if c[0].T.After(t) {
		t = c[0].T
	}
	end := s[len(s)-1].T
	i, j := 0, 0
	total := 0.0
	// Each round moves t to the next change of either series, so it runs
	// at most len(s)+len(c) times.
	for t.Before(end) {
		for i+1 < len(s) && !s[i+1].T.After(t) {
			i++
		}
		for j+1 < len(c) && !c[j+1].T.After(t) {
			j++
		}
		next := end
		if i+1 < len(s) && s[i+1].T.Before(next) {
			next = s[i+1].T
		}
		if j+1 < len(c) && c[j+1].T.Before(next) {
			next = c[j+1].T
		}
		if leak := s[i].V - baseline - c[j].V; leak > 0 {
			total += leak * next.Sub(t).Seconds()
		}
		t = next
	}
	return total
}

// steps returns the non-NaN points of series sorted by time (stable, so
// of two points at the same time the later one given wins).
func steps(series []Point) []Point {
	out := make([]Point, 0, len(series))
	for _, p := range series {
		if !math.IsNaN(p.V) {
			out = append(out, p)
		}
	}
	slices.SortStableFunc(out, func(a, b Point) int { return a.T.Compare(b.T) })
	return out
}

// LeftoverCPU returns the CPU seconds a process probe saw between two of
// its samples (typically the quiet window after the load and grace),
// never negative: a tree that lost a process not reaped inside it can show
// less CPU time than before.
func LeftoverCPU(before, after ProcessSample) float64 {
	return Above(after.CPUSeconds, before.CPUSeconds)
}
