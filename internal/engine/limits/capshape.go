package limits

import (
	"fmt"
	"time"

	"github.com/mcpchaos/mcpchaos/report"
)

// A cap on calls in flight: how it is told from a rate limit, and its
// answer.

// isCap reports a concurrency cap and its size: the burst's slow calls
// held back every other call until the first of them ended (recover), and
// the hold's refusals all came while about that many were in flight.
//
// When probing began only after the first accepted call had ended (a
// busy client took the burst's refusals in late), the probes cannot tell
// when a slot freed: the hold's refusals, all with about that many calls
// in flight, must then say it alone (probeLate).
func (s *Search) isCap() (int, bool) {
	ok, _ := count(s.limitedOf(s.f.burst))
	r := s.f.rec
	if !r.done || !r.found {
		return 0, false
	}
	if s.probeLate() {
		if len(s.f.hold) == 0 || r.firstOK < 3*s.o.Probe || !slowAccepts(s.limitedOf(s.f.hold), 3*s.o.Probe) {
			return 0, false
		}
	} else if !concurrencyCap(ok, r.firstOK, r.next, s.slack(), 3*s.o.Probe) {
		return 0, false
	}
	if len(s.f.hold) > 0 && !capHolds(inFlightAtRefusals(s.limitedOf(s.f.hold)), ok) {
		return 0, false
	}
	return ok, true
}

// slowAccepts reports whether a phase's accepted calls were slow (their
// median at least minSlow) and its refusals quick beside them (their
// median under half of it): a cap's slots are held by work, while a
// starved client stretches every answer alike.
func slowAccepts(list []obs, minSlow time.Duration) bool {
	var oks, refused []time.Duration
	for _, o := range list {
		switch {
		case o.ok:
			oks = append(oks, o.answered-o.sent)
		case o.throttled:
			refused = append(refused, o.answered-o.sent)
		}
	}
	m := median(oks)
	return len(oks) > 0 && len(refused) > 0 && m >= minSlow && median(refused) < m/2
}

// probeLate reports whether probing after the burst began after the first
// of its accepted calls had ended.
func (s *Search) probeLate() bool {
	r := s.f.rec
	return r.done && r.firstOK > 0 && r.began > r.firstOK+s.slack()
}

func (s *Search) capShape(l *report.Limits, c int) {
	l.Window, l.Confidence, l.Concurrency = "concurrency", "high", &c
	if len(s.f.hold) == 0 || s.probeLate() {
		l.Confidence = "medium"
	}
	r := s.f.rec
	if s.probeLate() {
		l.Evidence = append(l.Evidence, fmt.Sprintf("window concurrency %d (%s): the hold's refusals came with about %d calls in flight; after the burst our client began probing only %.2fs after it, when the first accepted call had ended (%.2fs), so when a slot freed was not seen",
			c, l.Confidence, c, r.began.Seconds(), r.firstOK.Seconds()))
	} else {
		l.Evidence = append(l.Evidence, fmt.Sprintf("window concurrency %d (%s): after the burst no call was accepted until the first accepted one ended (%.2fs), and one was %.2fs after the burst; the hold's refusals came with about %d calls in flight",
			c, l.Confidence, r.firstOK.Seconds(), r.next.Seconds(), c))
	}
	if len(s.f.hold) > 0 {
		rate, how := s.steady()
		l.Rate = ptr(round(rate, 1))
		l.Evidence = append(l.Evidence, fmt.Sprintf("rate %s/s: %s while %s/s were offered (what %d in flight at their latency allow)",
			num(*l.Rate), how, num(s.f.holdRate), c))
	}
}
