package engine

import (
	"context"
	"math"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// pacer paces an open-model load. It is a vegeta Pacer (Pace says how long
// to wait before the next hit) that can also say when hit n was meant to be
// sent, so every tick carries its intended time even when the engine runs
// behind: latency is measured from that time, free of coordinated omission.
type pacer interface {
	vegeta.Pacer
	// intended returns when hit n (0-based) is due, after the start.
	intended(n uint64) time.Duration
}

// paced calls hit for every hit p schedules, at its intended time after
// began, until ctx ends, p stops, or a hit falls due at or after end. Each
// hit gets its number (from 0) and its intended offset. The load's ticks
// and the background faults are both paced here.
func paced(ctx context.Context, p pacer, began time.Time, end time.Duration, hit func(n uint64, at time.Duration)) {
	pacedFrom(ctx, p, began, end, 0, 1, hit)
}

// pacedFrom is paced for the hits first, first+step, first+2·step, ...:
// a shard's part of the schedule, each hit at its time in the whole run.
func pacedFrom(ctx context.Context, p pacer, began time.Time, end time.Duration, first, step uint64, hit func(n uint64, at time.Duration)) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	sleep := func(d time.Duration) bool {
		if d <= 0 {
			return ctx.Err() == nil
		}
		timer.Reset(d)
		select {
		case <-ctx.Done():
			return false
		case <-timer.C:
			return true
		}
	}
	for n := first; ; n += step {
		at := p.intended(n)
		wait, stop := p.Pace(time.Since(began), n)
		if stop || at < 0 || at >= end {
			// The load is over (or the pacer broke: never run unbounded).
			// It lasts until its end, not until the next hit would have
			// been due: a shard's next hit may be due well after it.
			sleep(time.Until(began.Add(end)))
			return
		}
		if !sleep(wait) {
			return // the interrupt came first, or with the tick
		}
		hit(n, at)
	}
}

// constant is vegeta's constant pacer.
type constant struct{ vegeta.ConstantPacer }

func (c constant) intended(n uint64) time.Duration {
	return time.Duration(float64(n) * float64(c.Per) / float64(c.Freq))
}

// Pace implements vegeta.Pacer so that hit n goes out at intended(n).
// (vegeta's own ConstantPacer.Pace waits for hit n+1 — its hits are
// counted from 1 — which would send every tick one interval after the
// time it carries.)
func (c constant) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	if c.Freq <= 0 || c.Per <= 0 {
		return c.ConstantPacer.Pace(elapsed, hits)
	}
	if next := c.intended(hits); next > elapsed {
		return next - elapsed, false
	}
	return 0, false
}

// ramp is one linear segment of a staged load.
type ramp struct {
	start      time.Duration // offset of the segment
	dur        time.Duration // 0 for the final hold, which lasts for ever
	from, to   float64       // hits per second at the segment's ends
	hitsBefore float64       // hits due before the segment starts
}

// stages is a piecewise-linear pacer: each stage ramps linearly from the
// previous rate to its own over its duration, and the last rate is held
// after the last stage. (vegeta's LinearPacer has a single slope and
// cannot start from zero, so stages need their own.)
type stages struct{ segs []ramp }

// newStages builds the pacer from a starting rate and (rate, duration)
// stages.
func newStages(from float64, steps []Stage) stages {
	var s stages
	var at time.Duration
	hits := 0.0
	for _, st := range steps {
		to := st.To.Rate(0)
		s.segs = append(s.segs, ramp{start: at, dur: st.Over, from: from, to: to, hitsBefore: hits})
		hits += (from + to) / 2 * st.Over.Seconds()
		at += st.Over
		from = to
	}
	s.segs = append(s.segs, ramp{start: at, from: from, to: from, hitsBefore: hits})
	return s
}

func (s stages) seg(elapsed time.Duration) ramp {
	for i := len(s.segs) - 1; i > 0; i-- {
		if elapsed >= s.segs[i].start {
			return s.segs[i]
		}
	}
	return s.segs[0]
}

func (r ramp) slope() float64 {
	if r.dur <= 0 {
		return 0
	}
	return (r.to - r.from) / r.dur.Seconds()
}

// hits is how many hits are due by elapsed.
func (s stages) hits(elapsed time.Duration) float64 {
	r := s.seg(elapsed)
	t := (elapsed - r.start).Seconds()
	return r.hitsBefore + r.from*t + r.slope()*t*t/2
}

// Rate implements vegeta.Pacer: the offered rate at elapsed, per second.
func (s stages) Rate(elapsed time.Duration) float64 {
	r := s.seg(elapsed)
	return r.from + r.slope()*(elapsed-r.start).Seconds()
}

func (s stages) intended(n uint64) time.Duration {
	h := float64(n)
	r := s.segs[len(s.segs)-1]
	for _, seg := range s.segs {
		end := seg.hitsBefore + (seg.from+seg.to)/2*seg.dur.Seconds()
		if seg.dur > 0 && h < end {
			r = seg
			break
		}
	}
	h -= r.hitsBefore
	a, b := r.slope(), r.from
	var t float64
	switch {
	case math.Abs(a) < 1e-12:
		if b <= 0 {
			return math.MaxInt64
		}
		t = h / b
	default:
		// a/2 t² + b t − h = 0
		d := b*b + 2*a*h
		if d < 0 {
			return math.MaxInt64
		}
		t = (-b + math.Sqrt(d)) / a
	}
	return r.start + time.Duration(t*float64(time.Second))
}

// Pace implements vegeta.Pacer.
func (s stages) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	next := s.intended(hits)
	if next == math.MaxInt64 {
		return 0, true
	}
	if next <= elapsed {
		return 0, false
	}
	return next - elapsed, false
}
