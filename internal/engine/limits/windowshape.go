package limits

import (
	"cmp"
	"fmt"
	"math"
	"time"

	"github.com/mcpchaos/mcpchaos/report"
)

// The limiter's shape: a burst and a sustained rate, told apart as a fixed
// window, a sliding window or a token bucket (a cap on calls in flight is
// capshape.go's).

// shape: the window's kind, the sustained rate and the burst.
func (s *Search) shape(l *report.Limits) {
	burst := s.limitedOf(s.f.burst)
	ok, th := count(burst)
	if th == 0 && s.f.overRate == 0 {
		l.Window, l.Confidence = "none", "high"
		l.Evidence = append(l.Evidence, fmt.Sprintf("window none: %d calls at once and every rate up to %s/s were accepted", len(burst), num(s.f.searched)))
		return
	}
	l.Burst = &ok
	burstLine := fmt.Sprintf("burst %d: %d of %d calls sent at once after idle were accepted", ok, ok, len(burst))
	if th == 0 {
		burstLine += " (all of them: the burst is at least that)"
	}
	l.Evidence = append(l.Evidence, burstLine)
	if c, isCap := s.isCap(); isCap {
		s.capShape(l, c)
		return
	}
	if p, periodic := s.holdPeriod(); periodic && !s.notAWindow(p) {
		s.windowShape(l, p)
		return
	}
	if len(s.f.hold) == 0 {
		l.Window, l.Confidence = "token_bucket", "low"
		if s.f.overRate > 0 {
			// A step was throttled, and the search ended (interrupted,
			// out of budget) before the hold that measures the rate.
			why := "the search was " + cmp.Or(s.f.ended, "cut short") + " before the hold"
			if s.f.ended == "done" {
				why = "no hold was run (see the notes)"
			}
			refused := ""
			if th > 0 {
				refused = fmt.Sprintf("the burst was refused beyond %d and ", ok)
			}
			l.Evidence = append(l.Evidence, fmt.Sprintf("rate unknown: %sthe step at %s/s was throttled, but %s: "+
				"the sustained rate, which the hold measures, is below %s/s", refused, num(s.f.overRate), why, num(s.f.overRate)))
			return
		}
		l.Evidence = append(l.Evidence, fmt.Sprintf("rate unknown: the burst was refused beyond %d but no rate up to %s/s was throttled (the sustained rate is above it)", ok, num(s.f.searched)))
		return
	}
	rate, _ := s.steady()
	if window, ok := slidingAfterBurst(ok, rate, s.f.rec); ok {
		s.slidingShape(l, window)
		return
	}
	// A bucket refills while the burst is being sent: those tokens are
	// not the burst. The second burst, on warm connections, is the
	// tighter one.
	which := "after idle"
	if len(s.f.reburst) > 0 {
		burst, which = s.limitedOf(s.f.reburst), "after idle, the second time"
		ok, _ = count(burst)
	}
	if refill := int(math.Round(rate * sendSpread(burst).Seconds())); ok > 1 {
		b := max(1, ok-refill)
		l.Burst = &b
		l.Evidence[len(l.Evidence)-1] = fmt.Sprintf("burst %d: %d of %d calls sent at once %s were accepted, over %.2fs in which a bucket of %s/s refills %d",
			b, ok, len(burst), which, sendSpread(burst).Seconds(), num(round(rate, 1)), refill)
	}
	s.bucketShape(l)
}

// sendSpread bounds how long the server took over a burst: from the first
// accepted call's sending to the last refusal's answer, less what the
// server took over refusing beyond what it took over accepting (the
// medians): a server that works before it refuses answers its refusals
// late.
func sendSpread(burst []obs) time.Duration {
	oks := okTimes(burst)
	if len(oks) == 0 {
		return 0
	}
	var okTook, refTook []float64
	for _, o := range burst {
		if o.throttled {
			refTook = append(refTook, float64(o.answered-o.sent))
		} else if o.ok {
			okTook = append(okTook, float64(o.answered-o.sent))
		}
	}
	late := time.Duration(max(0, median(refTook)-median(okTook)))
	last := oks[0]
	for _, o := range burst {
		if o.throttled {
			last = max(last, o.answered-late)
		}
	}
	return last - oks[0]
}

// slidingAfterBurst recognises a sliding window whose overload pattern is
// even (a steady load spreads its slots evenly): after a burst of n,
// nothing is accepted for the whole window, n/rate, while a token bucket
// accepts again one interval later. It returns the window's length.
func slidingAfterBurst(n int, rate float64, r recovery) (time.Duration, bool) {
	if !r.found || n < 2 || rate <= 0 || r.refused < 3 {
		return 0, false
	}
	window := time.Duration(float64(n) / rate * float64(time.Second))
	return window, window >= 300*time.Millisecond && r.sinceFirst >= window*3/4 && r.sinceFirst <= window*5/4+200*time.Millisecond
}

func (s *Search) slidingShape(l *report.Limits, window time.Duration) {
	rate, how := s.steady()
	l.Rate = ptr(round(rate, 1))
	l.Window, l.Confidence, l.WindowS = "sliding_window", "medium", ptr(round(window.Seconds(), 2))
	l.Evidence = append(l.Evidence, fmt.Sprintf("rate %s/s: %s while %s/s were offered", num(*l.Rate), how, num(s.f.holdRate)))
	l.Evidence = append(l.Evidence, fmt.Sprintf("window sliding_window %.2fs (%s): after the burst of %d nothing was accepted for %.2fs (burst / rate = %.2fs: the burst's slots freed a window later), and under overload the accepted calls were spread evenly",
		window.Seconds(), l.Confidence, *l.Burst, s.f.rec.sinceFirst.Seconds(), window.Seconds()))
}

// holdOKs are the hold's accepted calls of the limited tools.
func (s *Search) holdOKs() []time.Duration { return okTimes(s.limitedOf(s.f.hold)) }

// steady is the hold's accepted rate after its first quarter (at most a
// second), which may still spend what the limiter had left, and how it
// was counted. It is counted between the limiter's refusals, from the
// server's answers (spanRate: exact for a bucket, however late the client
// sent), or, with too few refusals for that, over the hold's schedule.
func (s *Search) steady() (rate float64, how string) {
	from := s.f.holdFrom + min(time.Second, (s.f.holdTo-s.f.holdFrom)/4)
	if f := spanRate(s.limitedOf(s.f.hold), from, stallGap(s.f.holdRate)); f.ok2 {
		how = fmt.Sprintf("%d ok in %.0f whole seconds with refusals", f.ok, f.span.Seconds())
		if f.stalled > 0 {
			how += fmt.Sprintf(" (%.0fs in or after a stall of our client left out)", f.stalled.Seconds())
		}
		return f.rate, how
	}
	rate = steadyRate(s.holdOKs(), from, s.f.holdTo)
	return rate, fmt.Sprintf("%d ok in %.1fs", int(math.Round(rate*(s.f.holdTo-from).Seconds())), (s.f.holdTo - from).Seconds())
}

// notAWindow reports clumps that a window does not explain: after a burst
// in the middle of a period, a fixed window accepts again half a period
// later and a sliding one a period later; a call accepted again within a
// quarter of a period means the clumps came from elsewhere (pauses of a
// busy machine, of the network).
func (s *Search) notAWindow(p periodic) bool {
	return s.f.confirmed && s.f.confirmNext < p.every/4
}

func (s *Search) windowShape(l *report.Limits, p periodic) {
	next, how := s.f.rec.next, "after the first burst"
	if s.f.confirmed {
		next, how = s.f.confirmNext, "after a burst in the middle of a period"
	}
	kind, sure := windowKind(p.every, next)
	// A fixed window's boundaries keep their time; a sliding window's
	// clumps drift apart by the client's delays (slidingPeriod).
	rate, every := periodRate(s.holdOKs(), p), p.every
	if kind == "sliding_window" {
		every = slidingPeriod(p)
		rate = cycleCount(s.holdOKs(), p) / every.Seconds()
	}
	l.Rate = ptr(round(rate, 1))
	l.WindowS = ptr(round(every.Seconds(), 2))
	l.Window, l.Confidence = kind, "low"
	switch {
	case s.f.confirmed && sure:
		l.Confidence = "high"
	case s.f.confirmed || sure:
		l.Confidence = "medium"
	}
	l.Evidence = append(l.Evidence, fmt.Sprintf("rate %s/s: %d ok per %.2fs period, in clumps of %.0f, while %s/s were offered",
		num(*l.Rate), int(math.Round(rate*every.Seconds())), every.Seconds(), p.size, num(s.f.holdRate)))
	what := "a sliding window frees a slot one period after it was used"
	if every != p.every {
		what += fmt.Sprintf("; the length is the lower quartile of the intervals between clumps, %.2fs, not their median, %.2fs: a clump begins only when a call comes after the slot is free, so the clumps drift apart by our client's delays",
			every.Seconds(), p.every.Seconds())
	}
	if kind == "fixed_window" {
		what = "a fixed window starts afresh at its next boundary; up to twice its count can pass around a boundary"
	}
	l.Evidence = append(l.Evidence, fmt.Sprintf("window %s %.2fs (%s): calls were accepted again %.2fs %s (%s)",
		kind, every.Seconds(), l.Confidence, next.Seconds(), how, what))
}

func (s *Search) bucketShape(l *report.Limits) {
	rate, how := s.steady()
	l.Rate = ptr(round(rate, 1))
	l.Window, l.Confidence = "token_bucket", "medium"
	r := s.f.rec
	if r.found && rate > 0 && r.next <= time.Duration(3*float64(time.Second)/rate)+s.slack() {
		l.Confidence = "high"
	}
	l.Evidence = append(l.Evidence, fmt.Sprintf("rate %s/s: %s while %s/s were offered", num(*l.Rate), how, num(s.f.holdRate)))
	line := fmt.Sprintf("window token_bucket (%s): accepted calls spread evenly under overload, no periodic gaps", l.Confidence)
	if r.found {
		line += fmt.Sprintf("; after the burst a call was accepted again %.2fs later", r.next.Seconds())
	}
	l.Evidence = append(l.Evidence, line)
}
