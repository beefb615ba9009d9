package limits

import (
	"slices"
	"time"

	"github.com/mcpchaos/mcpchaos/results"
)

// Estimators that hold on a busy client. A client that cannot send what
// it means to sends late, in clumps, or stops for a while: the rate it
// offers is not the rate it meant, and times stamped by its pacer drift
// from the server's. What follows measures from the server's answers
// (obs.at), between instants the server itself marks (its refusals), and
// leaves out the stretches in which the client stalled.

// spanFit is the hold's accepted rate over the seconds it can be trusted.
type spanFit struct {
	rate    float64
	ok      int           // accepted calls counted
	span    time.Duration // the seconds they were counted over
	stalled time.Duration // seconds left out: our client stalled in or just before them
	ok2     bool
}

// spanRate is the accepted rate of list (one limiter's calls, any order)
// over the whole seconds from `from` to its last answer, counted by when
// the server answered (obs.at). A second counts only when calls were
// refused in it (the client offered more than the limit) and our client
// neither stalled in it nor in the second before: a pause in sending
// longer than stallGap, or in the answers (a client that stamped its sends
// but did not write them), lets a bucket fill up and overflow, and the
// calls held back then reach the server at once and are answered in any
// order, so both that second and the next are left out. Summed over the
// seconds kept, a bucket's accepted calls are what it refilled, give or
// take a token at each end. When under two seconds are left, every second
// with refusals counts. ok2 is false under two seconds with refusals.
func spanRate(list []obs, from, stallGap time.Duration) spanFit {
	var sent, at []time.Duration
	last := time.Duration(0)
	for _, o := range list {
		sent, at = append(sent, o.sent), append(at, o.at)
		last = max(last, o.at)
	}
	n := int((last - from) / time.Second)
	var f spanFit
	if n < 2 {
		return f
	}
	slot := func(t time.Duration) int { return int((t - from) / time.Second) }
	bad := make([]bool, n+1)
	refused, oks := make([]int, n+1), make([]int, n+1)
	for _, ts := range [][]time.Duration{sent, at} {
		slices.Sort(ts)
		for i := 1; i < len(ts); i++ {
			if ts[i]-ts[i-1] <= stallGap || ts[i] < from {
				continue
			}
			for k := max(0, slot(ts[i-1])); k <= min(n, slot(ts[i])+1); k++ {
				bad[k] = true
			}
		}
	}
	for _, o := range list {
		if k := slot(o.at); o.at >= from && k < n {
			if o.throttled {
				refused[k]++
			}
			if o.ok {
				oks[k]++
			}
		}
	}
	count := func(skip []bool) spanFit {
		var f spanFit
		for k := range n {
			switch {
			case skip[k]:
				f.stalled += time.Second
			case refused[k] > 0:
				f.ok += oks[k]
				f.span += time.Second
			}
		}
		return f
	}
	f = count(bad)
	if f.span < 2*time.Second {
		// Stalled nearly throughout: every second with refusals, and
		// the card's note on a late client.
		f = count(make([]bool, n+1))
	}
	if f.span < 2*time.Second {
		return f
	}
	f.rate, f.ok2 = float64(f.ok)/f.span.Seconds(), true
	return f
}

// stallGap is the pause in sending that counts as a stalled client when
// rate was offered: five intervals, and at least 250 ms (a shorter one is
// a loaded machine's everyday hiccup, and a bucket does not overflow in
// it unless it holds less than a quarter second's refill).
func stallGap(rate float64) time.Duration {
	return max(250*time.Millisecond, time.Duration(5*float64(time.Second)/rate))
}

// slidingPeriod is a sliding window's length from the clumps of p. A
// sliding window frees each slot one length after it was used, and the
// next clump begins when a call comes after that: a client that pauses
// or sends late begins it later, and the clumps drift apart by its
// delays. So each interval between clump starts is the length plus a
// delay that is never negative, give or take how late our client stamped
// the two calls: the lower quartile of the intervals (not the shortest,
// which one late stamp pulls down).
func slidingPeriod(p periodic) time.Duration {
	var d []time.Duration
	for i := 1; i < len(p.starts); i++ {
		d = append(d, p.starts[i]-p.starts[i-1])
	}
	slices.Sort(d)
	return d[len(d)/4]
}

// cycleCount is the accepted calls per cycle of p: those from its first
// clump's start to its last's, over the cycles between.
func cycleCount(oks []time.Duration, p periodic) float64 {
	first, last := p.starts[0], p.starts[len(p.starts)-1]
	return float64(countIn(oks, first-1, last-1)) / float64(len(p.starts)-1)
}

// lateLimit is how late a call of a step offered at rate may go out
// before the second it belongs to is left out: maxLag, or two intervals
// (a call that late goes out together with the next two).
func lateLimit(rate float64) time.Duration {
	return max(maxLag, time.Duration(2*float64(time.Second)/rate))
}

// onTime keeps a step's records of the whole seconds (counted from its
// first scheduled call) in which our client sent on time: a second with
// a call sent later than lateLimit is left out, and so is the second
// after it, in which the calls held back reach the server together (a
// bucket refuses them, a pool of workers queues them: the client's
// doing, not the server's). It returns what it kept and for how long.
func onTime(recs records, rate float64) (kept records, d time.Duration) {
	if len(recs) == 0 {
		return nil, 0
	}
	began := recs[0].Scheduled
	for _, r := range recs {
		if r.Scheduled.Before(began) {
			began = r.Scheduled
		}
	}
	slot := func(r *results.Record) int { return int(r.Scheduled.Sub(began) / time.Second) }
	late := map[int]bool{}
	last := 0
	for _, r := range recs {
		last = max(last, slot(r))
		if time.Duration(r.SentUs)*time.Microsecond > lateLimit(rate) {
			late[slot(r)], late[slot(r)+1] = true, true
		}
	}
	for _, r := range recs {
		if !late[slot(r)] {
			kept = append(kept, r)
		}
	}
	for i := 0; i <= last; i++ {
		if !late[i] {
			d += time.Second
		}
	}
	return kept, d
}

// countIn counts the times of ts (sorted) in (a, b].
func countIn(ts []time.Duration, a, b time.Duration) int {
	i, _ := slices.BinarySearch(ts, a+1)
	j, _ := slices.BinarySearch(ts, b+1)
	return j - i
}
