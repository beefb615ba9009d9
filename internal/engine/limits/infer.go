package limits

import (
	"slices"
	"time"

	"github.com/mcpchaos/mcpchaos/results"
)

// obs is one call as the inference sees it: times since the search began.
type obs struct {
	phase     string
	tool      string
	sent      time.Duration
	answered  time.Duration // when the answer came (sent when none came)
	ok        bool
	throttled bool
	kind      string        // the throttling kind
	hint      time.Duration // the retry time advertised, when hinted
	hinted    bool
	hintFrom  string
	// broke names a rule of the era the answer broke ("" when none).
	broke string
	// lag is how late the call went out after its scheduled time.
	lag time.Duration
	// at is when the server decided, as seen on the wire: a refusal's
	// answer, an accepted call's first response headers (its answer when
	// they came with it). A busy client stamps sends late or early; the
	// server's answers come in the server's order.
	at time.Duration
	// claim is the quota the rate-limit headers claimed per claimWindow
	// (0: none; claimWindow 0: unstated), claimFrom the header.
	claim       int
	claimWindow time.Duration
	claimFrom   string
}

// fromRecord turns a call's record into an obs, times relative to start.
func fromRecord(rec results.Record, start time.Time) obs {
	base := rec.Scheduled.Sub(start)
	o := obs{phase: rec.Phase, tool: rec.Tool, sent: base + time.Duration(rec.SentUs)*time.Microsecond,
		ok: rec.Outcome == results.OK, throttled: rec.Outcome == results.Throttled, kind: rec.ThrottleKind}
	if rec.SentUs == 0 {
		o.sent = base
	}
	o.lag = o.sent - base
	for name := range rec.Violations {
		o.broke = name
	}
	switch {
	case rec.ResponseUs > 0:
		o.answered = base + time.Duration(rec.ResponseUs)*time.Microsecond
	case rec.EndUs > 0:
		o.answered = base + time.Duration(rec.EndUs)*time.Microsecond
	default:
		o.answered = o.sent
	}
	o.at = o.answered
	if rec.HeadersUs > 0 && base+time.Duration(rec.HeadersUs)*time.Microsecond < o.at {
		o.at = base + time.Duration(rec.HeadersUs)*time.Microsecond
	}
	switch {
	case rec.RetryAfterMs != nil:
		o.hint, o.hinted, o.hintFrom = time.Duration(*rec.RetryAfterMs)*time.Millisecond, true, "Retry-After"
	case rec.RetryHintMs != nil:
		o.hint, o.hinted, o.hintFrom = time.Duration(*rec.RetryHintMs)*time.Millisecond, true, rec.RetryHintFrom
	case rec.RateLimitResetMs != nil:
		o.hint, o.hinted, o.hintFrom = time.Duration(*rec.RateLimitResetMs)*time.Millisecond, true, "RateLimit-Reset"
	}
	o.claim, o.claimWindow, o.claimFrom = rec.RateLimitLimit, time.Duration(rec.RateLimitWindowMs)*time.Millisecond, rec.RateLimitFrom
	return o
}

// okTimes returns the sent times of the accepted calls, in order.
func okTimes(list []obs) []time.Duration {
	var t []time.Duration
	for _, o := range list {
		if o.ok {
			t = append(t, o.sent)
		}
	}
	slices.Sort(t)
	return t
}

// count returns how many calls of list are ok and how many throttled.
func count(list []obs) (ok, throttled int) {
	for _, o := range list {
		if o.ok {
			ok++
		}
		if o.throttled {
			throttled++
		}
	}
	return ok, throttled
}

// over reports whether a step was over the limit: at least 2 of its calls
// and more than 5 % of them throttled.
func over(list []obs) bool {
	_, th := count(list)
	return th >= 2 && float64(th) > 0.05*float64(len(list))
}

// periodic is a repeating pattern of accepted calls: clumps that start
// every `every`, with gaps between them.
type periodic struct {
	every  time.Duration
	starts []time.Duration    // when each clump began
	gaps   [][2]time.Duration // the pauses between clumps: from the last accepted call to the next
	size   float64            // median accepted calls per clump
}

// findPeriod looks for clumps of accepted calls separated by gaps longer
// than minGap and than half the longest gap (a pause of a busy machine
// inside a clump is not a window's gap), starting at a steady interval
// (each within 25 % of the median), with at least two calls in a clump
// (one call per gap is a steady rate, not a window). oks must be sorted.
func findPeriod(oks []time.Duration, minGap time.Duration) (periodic, bool) {
	longest := time.Duration(0)
	for i := 1; i < len(oks); i++ {
		longest = max(longest, oks[i]-oks[i-1])
	}
	minGap = max(minGap, longest/2)
	var starts []time.Duration
	var gaps [][2]time.Duration
	var sizes []int
	for i, t := range oks {
		if i > 0 && t-oks[i-1] > minGap {
			starts = append(starts, t)
			gaps = append(gaps, [2]time.Duration{oks[i-1], t})
			sizes = append(sizes, 0)
		}
		if len(sizes) > 0 {
			sizes[len(sizes)-1]++
		}
	}
	if len(starts) < 2 {
		return periodic{}, false
	}
	intervals := make([]time.Duration, len(starts)-1)
	for i := range intervals {
		intervals[i] = starts[i+1] - starts[i]
	}
	m := median(intervals)
	for _, g := range intervals {
		if g < m*3/4 || g > m*5/4 {
			return periodic{}, false
		}
	}
	// The last clump may be cut by the end of the phase: size from the
	// others.
	sz := make([]float64, len(sizes)-1)
	for i := range sz {
		sz[i] = float64(sizes[i])
	}
	p := periodic{every: m, starts: starts, gaps: gaps, size: median(sz)}
	return p, p.size >= 2
}

// gapsRefused reports whether the pauses between clumps are a limiter's:
// calls kept being sent in them (at least half of what rate offers) and
// were refused (at least 80 % of them). A pause in which nothing was sent
// is the client's (a busy machine), not a window's.
func gapsRefused(list []obs, p periodic, rate float64) bool {
	for _, g := range p.gaps {
		sent, refused := 0, 0
		for _, o := range list {
			if o.sent > g[0] && o.sent < g[1] {
				sent++
				if o.throttled {
					refused++
				}
			}
		}
		if float64(sent) < 0.5*rate*(g[1]-g[0]).Seconds() || float64(refused) < 0.8*float64(sent) {
			return false
		}
	}
	return true
}

// periodRate is the accepted rate over whole periods: the calls from the
// first clump's start to the last's, over that time.
func periodRate(oks []time.Duration, p periodic) float64 {
	first, last := p.starts[0], p.starts[len(p.starts)-1]
	n := 0
	for _, t := range oks {
		if t >= first && t < last {
			n++
		}
	}
	return float64(n) / (last - first).Seconds()
}

// steadyRate is the accepted rate from `from` to `to`.
func steadyRate(oks []time.Duration, from, to time.Duration) float64 {
	if to <= from {
		return 0
	}
	n := 0
	for _, t := range oks {
		if t >= from && t < to {
			n++
		}
	}
	return float64(n) / (to - from).Seconds()
}

// windowKind tells a fixed window from a sliding one by the confirm probe:
// after idle, a burst in the middle of a fixed window's period is accepted
// again at the next boundary (half a period later), a sliding window's
// only one whole period after the burst. nextAccept is that delay.
func windowKind(every, nextAccept time.Duration) (kind string, sure bool) {
	r := float64(nextAccept) / float64(every)
	switch {
	case r < 0.75:
		return "fixed_window", r > 0.3 && r < 0.7
	default:
		return "sliding_window", r > 0.85 && r < 1.25
	}
}

// concurrencyCap looks for a cap on calls in flight in what a burst of
// slow calls got: ok of them were accepted, the first of those ended at
// firstEnd, and the first call accepted after the burst was sent at
// nextAccept. A cap accepts nothing more until a call ends, and accepts
// again right after (within slack); a rate limit accepts on its own clock.
// The calls must be slow enough to tell (firstEnd at least minSlow after
// the burst was sent at zero).
func concurrencyCap(ok int, firstEnd, nextAccept, slack, minSlow time.Duration) bool {
	return ok >= 1 && firstEnd >= minSlow && nextAccept >= firstEnd-slack/4 && nextAccept <= firstEnd+slack
}

// inFlightAtRefusals returns, for each refused call of list, how many
// accepted calls of list overlapped it (sent before it was answered,
// answered after it was sent): the calls in flight when it was refused, as
// seen from the client.
func inFlightAtRefusals(list []obs) []int {
	var out []int
	for _, r := range list {
		if !r.throttled {
			continue
		}
		n := 0
		for _, o := range list {
			if o.ok && o.sent <= r.answered && o.answered >= r.sent {
				n++
			}
		}
		out = append(out, n)
	}
	return out
}

// capHolds reports whether the refusals of a phase all came while about c
// accepted calls were in flight: at least 80 % saw c-1 to c+2 of them.
func capHolds(atRefusals []int, c int) bool {
	if len(atRefusals) == 0 || c < 1 {
		return false
	}
	n := 0
	for _, k := range atRefusals {
		if k >= c-1 && k <= c+2 {
			n++
		}
	}
	return float64(n) >= 0.8*float64(len(atRefusals))
}

// retryVerdict compares an advertised retry time with when a call was
// first accepted again after it. A hint in whole seconds stands for a
// wait rounded up to them, so an honest one is accepted after more than a
// second less than it says; slack allows for the probe's spacing and the
// round trip. found is false when no call was accepted again within the
// probe (acceptedAfter is then how long it was tried).
func retryVerdict(hinted bool, advertised time.Duration, found bool, acceptedAfter, slack time.Duration) string {
	if !hinted {
		return "absent"
	}
	rounding := time.Duration(0)
	if advertised%time.Second == 0 {
		rounding = time.Second
	}
	switch {
	case !found && acceptedAfter > advertised+slack:
		return "too_short"
	case !found:
		return "unknown"
	case acceptedAfter > advertised+slack:
		return "too_short"
	case acceptedAfter < advertised-rounding-slack:
		return "too_long"
	}
	return "honest"
}

// median returns the median of xs (0 for none); xs is not changed.
func median[T time.Duration | float64 | int](xs []T) T {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
