// Package series is the arithmetic of step series: a quantity sampled at
// points in time (a probe's readings of the server, the client's calls in
// flight), whose value holds from each point until the next. The engine
// measures leaked work with it during a run, and the report when it merges
// the shards of a run that shared one server (their calls counted on a
// time grid, Bins, or their samples' peaks, PeakSum). It uses the standard
// library only, so every layer above it can share this one copy.
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

// PeakSum returns, at each instant of server (a probe's readings of a
// server that several clients call), the sum of the clients' calls in
// flight (each client's step series), each client counted at its peak
// around that instant, so that the sum never under-counts the clients:
// a client sampled at that very instant counts that sample (which holds
// its peak during the probe's read, as the engine records it); any other
// counts the larger of its last sample before the instant and its first
// after it (the first before its first sample, the last after its last).
//
// Counting each client at its last sample instead, a step series sampled
// at its own instants, lags whenever calls start faster than they end (a
// ramp): the server's reading then exceeds the stale sum by calls the
// clients do wait for, and LeakedCallSeconds, which keeps only positive
// differences, takes that noise for leaked work. The peak errs the other
// way: it may hide a little leaked work, never invent it.
//
// The result has one point per distinct instant of server, sorted, to be
// given to LeakedCallSeconds with server. Points need not be sorted; NaN
// values are dropped; a client with no points counts 0.
func PeakSum(server []Point, clients ...[]Point) []Point {
	s := steps(server)
	cs := make([][]Point, len(clients))
	for i, c := range clients {
		cs[i] = steps(c)
	}
	next := make([]int, len(cs)) // per client: its first point at or after t
	out := make([]Point, 0, len(s))
	for _, p := range s {
		t := p.T
		if n := len(out); n > 0 && out[n-1].T.Equal(t) {
			continue
		}
		total := 0.0
		for i, c := range cs {
			j := next[i]
			for j < len(c) && c[j].T.Before(t) {
				j++
			}
			next[i] = j
			total += peakAt(c, j, t)
		}
		out = append(out, Point{T: t, V: total})
	}
	return out
}

// peakAt is a client's count at t (see PeakSum), j its first point at or
// after t.
func peakAt(c []Point, j int, t time.Time) float64 {
	if j < len(c) && c[j].T.Equal(t) {
		v := c[j].V
		for k := j + 1; k < len(c) && c[k].T.Equal(t); k++ {
			v = max(v, c[k].V)
		}
		return v
	}
	switch {
	case len(c) == 0:
		return 0
	case j == 0:
		return c[0].V
	case j == len(c):
		return c[j-1].V
	}
	return max(c[j-1].V, c[j].V)
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
