// Package series is the arithmetic of step series: a quantity sampled at
// points in time (a probe's readings of the server, the client's calls in
// flight), whose value holds from each point until the next. The engine
// measures leaked work with it during a run, and the report when it merges
// the shards of a run that shared one server. It uses the standard library
// only, so every layer above it can share this one copy.
package series

import (
	"math"
	"slices"
	"time"
)

// Point is one sample of a series.
type Point struct {
	T time.Time
	V float64
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

// Sum returns the step series that is, at every instant, the sum of the
// values of several step series: a point at each instant where one of them
// changes. Before its first point a series counts 0 (the client's calls in
// flight, sampled from the start of its load); after its last, its last
// value holds. Points need not be sorted; NaN values are dropped.
func Sum(list ...[]Point) []Point {
	type change struct {
		t     time.Time
		delta float64
	}
	var changes []change
	for _, s := range list {
		prev := 0.0
		for _, p := range steps(s) {
			changes = append(changes, change{p.T, p.V - prev})
			prev = p.V
		}
	}
	slices.SortStableFunc(changes, func(a, b change) int { return a.t.Compare(b.t) })
	out := make([]Point, 0, len(changes))
	total := 0.0
	for _, c := range changes {
		total += c.delta
		if n := len(out); n > 0 && out[n-1].T.Equal(c.t) {
			out[n-1].V = total
			continue
		}
		out = append(out, Point{T: c.t, V: total})
	}
	return out
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
