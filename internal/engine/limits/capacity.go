package limits

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// capacityPhase finds the highest offered rate at which the scenario's
// checks hold: rates double from a quarter of the limit found (or an
// eighth of MaxRate) until the checks fail, then the last rate that held
// and the first that failed are bisected to within 5 %, and the rate
// found is held twice as long to confirm it (lowered by 5 % while it does
// not hold).
func (s *Search) capacityPhase(ctx context.Context) error {
	if len(s.o.Checks) == 0 {
		return nil
	}
	r := s.o.MaxRate / 8
	if s.f.overRate > 0 {
		r = s.f.overRate / 4
	}
	r = max(r, 1)
	lo, hi := 0.0, 0.0
	var hiThrottled bool
	try := func(rate float64, d time.Duration) (bool, bool, error) { return s.capacityStep(ctx, rate, d) }
	for hi == 0 && r <= s.o.MaxRate {
		if s.left() < 3*s.o.Step {
			s.f.capacityNote = "the budget ended the doubling"
			break
		}
		pass, th, err := try(r, s.o.Step)
		if err != nil || ctx.Err() != nil {
			return err
		}
		if !pass {
			hi, hiThrottled = r, th
			break
		}
		lo, r = r, 2*r
		if r > s.o.MaxRate && lo < s.o.MaxRate {
			r = s.o.MaxRate
		}
	}
	for hi > 0 && lo > 0 && (hi-lo)/lo > 0.05 && s.left() >= 3*s.o.Step {
		mid := (lo + hi) / 2
		pass, th, err := try(mid, s.o.Step)
		if err != nil || ctx.Err() != nil {
			return err
		}
		if pass {
			lo = mid
		} else {
			hi, hiThrottled = mid, th
		}
	}
	for lo > 0 && s.left() >= 2*s.o.Step+time.Second {
		pass, _, err := try(lo, 2*s.o.Step)
		if err != nil || ctx.Err() != nil {
			return err
		}
		if pass {
			break
		}
		lo *= 0.95
	}
	s.f.capacity, s.f.capacityBound = lo, "server"
	if hiThrottled {
		s.f.capacityBound = "limiter"
	}
	s.capacityLate()
	if hi > 0 {
		s.f.capacityNote = fmt.Sprintf("the checks held at %s/s and failed at %s/s", num(round(lo, 1)), num(round(hi, 1)))
	} else if lo > 0 {
		s.f.capacityNote = fmt.Sprintf("the checks held up to %s/s, the most offered", num(round(lo, 1)))
	}
	return nil
}

// capacityStep offers rate for d and says whether the checks held and
// whether over 1 % of the calls were throttled. A step more than half
// left out (our client sent late) runs again, twice at most while the
// budget allows; then what there is is judged.
func (s *Search) capacityStep(ctx context.Context, rate float64, d time.Duration) (pass, throttled bool, err error) {
	for again := 0; ; again++ {
		_, recs, err := s.phase(ctx, "capacity", func(fire firer) {
			s.c.Pace(ctx, rate, d, func(at time.Time) { fire(at, -1) })
		})
		s.f.searched = max(s.f.searched, rate)
		kept, kd := onTime(recs, rate)
		if kd < d/2 && again < 2 && s.left() >= d+3*s.o.Step && err == nil && ctx.Err() == nil {
			s.f.capacityRerun++
			continue
		}
		if kd < d/2 {
			kept, kd = recs, d
		}
		s.f.capacityLeftOut += d - kd
		th := 0
		for _, r := range kept {
			if r.Outcome == results.Throttled {
				th++
			}
		}
		return s.checksHold(kept, kd), th*100 > len(kept), err
	}
}

// capacityLate notes what the steps left out because our client sent
// late.
func (s *Search) capacityLate() {
	if s.f.capacityRerun == 0 && s.f.capacityLeftOut == 0 {
		return
	}
	var parts []string
	if s.f.capacityLeftOut > 0 {
		parts = append(parts, fmt.Sprintf("%.0fs of its steps' calls were left out of the checks (a second with a call sent more than two intervals late, at least %v, and the second after it)",
			s.f.capacityLeftOut.Seconds(), maxLag))
	}
	if s.f.capacityRerun > 0 {
		parts = append(parts, fmt.Sprintf("%d steps were run again (half of each was late)", s.f.capacityRerun))
	}
	s.f.notes = append(s.f.notes, "capacity: our client sent late: "+strings.Join(parts, "; "))
}

// checksHold reports whether the scenario's checks hold on a step's calls.
func (s *Search) checksHold(recs records, d time.Duration) bool {
	agg := report.NewAggregator(s.o.Rules)
	for _, r := range recs {
		agg.Add(r)
	}
	sum := agg.Summary(report.Meta{Duration: d})
	// A step makes no faults and has no probes or gateway: a check on
	// those describes nothing here, so it is left out, not failed.
	kept, left := sum.Described(s.o.Checks)
	if len(left) > 0 && !s.f.capacityLeftChecks {
		s.f.capacityLeftChecks = true
		s.f.notes = append(s.f.notes, "capacity: checks left out, on what a step (no faults) cannot exercise: "+strings.Join(left, "; "))
	}
	sum.Evaluate(kept, false)
	return sum.Pass
}

// capacity: the highest rate at which the checks held.
func (s *Search) capacity(l *report.Limits) {
	if len(s.o.Checks) == 0 {
		return
	}
	if s.f.capacity == 0 {
		l.Evidence = append(l.Evidence, "capacity unknown: "+orDefault(s.f.capacityNote, "the checks never held"))
		return
	}
	l.Capacity, l.CapacityBound = ptr(round(s.f.capacity, 1)), s.f.capacityBound
	l.Evidence = append(l.Evidence, fmt.Sprintf("capacity %s/s (%s-bound): %s", num(*l.Capacity), l.CapacityBound, s.f.capacityNote))
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
