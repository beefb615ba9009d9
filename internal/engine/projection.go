package engine

import (
	"slices"
	"time"
)

// The projection (issue 25). Each fault cut of the load is given the work
// a cut call costs the server after its cut (measured by the quiet
// windows, with the server to itself), and that work is run through the
// load's intervals as the server's CPU shared it: in an interval where the
// server had CPU to spare, a call runs on a CPU of its own; in one where it
// did not (its threads waited for a CPU, or its busiest thread was
// runnable the whole interval, or it used every CPU there is), each call
// then runnable, the client's live ones and the cut ones not yet done, got
// an even share of the CPU the server had. A cut whose work ends past its
// grace is a call the server may have gone on with past it: information
// in a pass, not a verdict (report/verdict/contention.go).

// Contention thresholds, per interval: the server's threads waited for a
// CPU at least contendedWait of the interval's length (summed over its
// threads), or one thread was runnable for contendedBusy of it, or the
// server used contendedCPUs of the machine's CPUs.
const (
	contendedWait = 0.1
	contendedBusy = 0.9
	contendedCPUs = 0.85
)

// contended reports whether the server was short of CPU in iv, on a
// machine of cpus CPUs.
func (iv loadInterval) contended(cpus float64) bool {
	return iv.wait >= contendedWait*iv.secs || iv.busiest >= contendedBusy*iv.secs || iv.cpu >= contendedCPUs*cpus*iv.secs
}

// share is the CPU one runnable call got in iv, of runnable ones, as a
// share of one CPU.
func (iv loadInterval) share(runnable, cpus float64) float64 {
	if !iv.contended(cpus) {
		return 1
	}
	rate := iv.cpu / iv.secs
	if iv.busiest >= contendedBusy*iv.secs && rate > iv.busiest/iv.secs {
		rate = iv.busiest / iv.secs // one thread serves the calls
	}
	return min(1, rate/max(runnable, 1))
}

// projected is one cut's projected end.
type projected struct {
	cut time.Time
	end time.Duration // after the cut; horizon when not done by then
	// share is the least share of a CPU it got while contended (1: never
	// contended); live the client's calls in flight beside it then.
	share, live float64
}

// pending is a projected cut whose work is not done: out[i], left CPU-s.
type pending struct {
	i    int
	left float64
}

// projectCuts runs work (CPU-s a cut call costs after its cut) for each
// cut (in time order) through the intervals (in time order) and returns
// when each ended, up to horizon after its cut. A stretch between two
// intervals (a quiet window paused the sampler and the load), the time
// before the first and the time after the last (the load's end, or its
// last window) give each call a CPU of its own; an interval whose reading
// failed (unknown) gives the share of the one before it. Cuts after the
// last interval are not projected.
func projectCuts(ivs []loadInterval, cuts []time.Time, work, cpus float64, horizon time.Duration) []projected {
	if len(ivs) == 0 || work <= 0 {
		return nil
	}
	out := make([]projected, 0, len(cuts))
	var run []pending
	next := 0
	var last time.Time
	prevShare := 1.0
	add := func(before time.Time) {
		for next < len(cuts) && cuts[next].Before(before) {
			out = append(out, projected{cut: cuts[next], end: horizon, share: 1})
			run = append(run, pending{i: len(out) - 1, left: work})
			next++
		}
	}
	for _, iv := range ivs {
		start := iv.end.Add(-secsDur(iv.secs))
		if start.After(last) { // a pause, or the time before the first interval
			add(start)
			run = advance(run, out, last, start, 1)
		}
		add(iv.end)
		sh := iv.share(iv.live+float64(len(run)), cpus)
		if iv.unknown {
			sh = prevShare // not read: as the interval before it
		}
		prevShare = sh
		for _, p := range run {
			if sh < out[p.i].share {
				out[p.i].share, out[p.i].live = sh, iv.live
			}
		}
		run = advance(run, out, start, iv.end, sh)
		last = iv.end
		run = slices.DeleteFunc(run, func(p pending) bool { return !out[p.i].cut.Add(horizon).After(last) })
	}
	// After the last interval the load has ended (or the last window
	// paused it): what is left runs on a CPU of its own.
	advance(run, out, last, last.Add(horizon), 1)
	return out
}

// advance runs the pending cuts from from to to at share of a CPU each,
// sets the end of those done and returns the rest.
func advance(run []pending, out []projected, from, to time.Time, share float64) []pending {
	rest := run[:0]
	for _, p := range run {
		pr := &out[p.i]
		begin := from
		if pr.cut.After(begin) {
			begin = pr.cut
		}
		avail := to.Sub(begin).Seconds()
		if avail <= 0 {
			rest = append(rest, p)
			continue
		}
		if need := p.left / share; need <= avail {
			pr.end = min(pr.end, begin.Add(secsDur(need)).Sub(pr.cut))
			continue
		}
		p.left -= share * avail
		rest = append(rest, p)
	}
	return rest
}

// secsDur converts seconds to a duration.
func secsDur(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
