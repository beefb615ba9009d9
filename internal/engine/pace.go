package engine

import (
	"slices"
	"sync"
	"time"
)

// The load's pace (issue 25). A server that goes on with a cut call does
// the work the call had left at the pace its other calls of the same kind
// keep beside it: a tool that computes for 25 ms a step under a load that
// stretches each step to 60 ms ends its six steps left some 360 ms after
// the cut. So each call that reported rising progress, when its answer
// comes or when it is cut (up to its cut), gives its scenario entry's
// pace, the seconds per unit of progress from its first notification to
// its last, over that span; projection.go runs each
// fault's cut through it. Kept in 100 ms buckets from the load's start,
// per entry of the scenario's calls.

// paceBucket is the width of one bucket of the pace.
const paceBucket = 100 * time.Millisecond

// maxQuick bounds the paces kept per entry to find its quickest.
const maxQuick = 1000

// maxPaceBuckets bounds the buckets kept per entry: an hour of load.
const maxPaceBuckets = 36000

// paceBook is the load's pace, per entry of the scenario's calls.
type paceBook struct {
	mu     sync.Mutex
	began  time.Time
	series map[*CallSpec]*paceSeries
}

// paceSeries is one entry's pace: per bucket, the seconds per unit each
// call took weighted by how long it stepped in the bucket (sum), and that
// time (weight); quick, the first maxQuick calls' paces (sorted: in
// order); total, the largest progress total its answered calls reported
// (0: none).
type paceSeries struct {
	sum, weight []float64
	quick       []float64
	sorted      bool
	total       float64
}

// start sets the moment bucket 0 begins.
func (b *paceBook) start(at time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.began = at
}

// get is spec's series, made if new (b.mu held).
func (b *paceBook) get(spec *CallSpec) *paceSeries {
	if b.series == nil {
		b.series = map[*CallSpec]*paceSeries{}
	}
	s := b.series[spec]
	if s == nil {
		s = &paceSeries{}
		b.series[spec] = s
	}
	return s
}

// noteTotal notes the progress total an answered call of spec reported.
func (b *paceBook) noteTotal(spec *CallSpec, total float64) {
	if spec == nil || total <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.get(spec)
	s.total = max(s.total, total)
}

// total is the largest progress total spec's answered calls reported.
func (b *paceBook) total(spec *CallSpec) (float64, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s := b.series[spec]; s != nil && s.total > 0 {
		return s.total, true
	}
	return 0, false
}

// add notes one call of spec that stepped from first to last at
// perUnit seconds a unit of progress. Buckets past maxPaceBuckets (an hour)
// are not kept.
func (b *paceBook) add(spec *CallSpec, first, last time.Time, perUnit float64) {
	if spec == nil || perUnit <= 0 || !last.After(first) {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.began.IsZero() || first.Before(b.began) {
		return
	}
	s := b.get(spec)
	if len(s.quick) < maxQuick {
		s.quick, s.sorted = append(s.quick, perUnit), false
	}
	i0, i1 := b.bucket(first), b.bucket(last)
	if i1 >= maxPaceBuckets {
		return
	}
	if n := i1 + 1; n > len(s.sum) {
		s.sum = append(s.sum, make([]float64, n-len(s.sum))...)
		s.weight = append(s.weight, make([]float64, n-len(s.weight))...)
	}
	for i := i0; i <= i1; i++ {
		from := b.began.Add(time.Duration(i) * paceBucket)
		w := earlier(last, from.Add(paceBucket)).Sub(later(first, from)).Seconds()
		if w > 0 {
			s.sum[i] += w * perUnit
			s.weight[i] += w
		}
	}
}

// bucket is the bucket at holds.
func (b *paceBook) bucket(at time.Time) int { return int(at.Sub(b.began) / paceBucket) }

// pace is spec's seconds per unit over the buckets [from, to) meets,
// weighted by the time its calls stepped there; false when none stepped
// there.
func (b *paceBook) pace(spec *CallSpec, from, to time.Time) (float64, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.series[spec]
	if s == nil || b.began.IsZero() || !to.After(from) {
		return 0, false
	}
	sum, w := 0.0, 0.0
	for i := max(b.bucket(from), 0); i <= b.bucket(to.Add(-1)) && i < len(s.sum); i++ {
		sum, w = sum+s.sum[i], w+s.weight[i]
	}
	if w <= 0 {
		return 0, false
	}
	return sum / w, true
}

// quickest is spec's quickest pace, seconds a unit: the 5th percentile of
// its calls' (the quickest alone may be a call that reported its progress
// in a burst); false with none.
func (b *paceBook) quickest(spec *CallSpec) (float64, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.series[spec]
	if s == nil || len(s.quick) == 0 {
		return 0, false
	}
	if !s.sorted {
		slices.Sort(s.quick)
		s.sorted = true
	}
	return s.quick[len(s.quick)/20], true
}

// notePace gives the run's pace what cs showed when its answer came, not
// cut, in one round (a retry's progress mixes its rounds') and untouched
// by a fault (a stalled reader slows the reading, not the server): its
// progress total, and its pace (notePaceSoFar). cs.mu is held.
func (cs *callState) notePace() {
	if !cs.cancelAt.IsZero() || cs.round > 0 || len(cs.rec.Faults) > 0 || cs.prog.count == 0 {
		return
	}
	if cs.prog.hasTotal {
		cs.r.paces.noteTotal(cs.spec, cs.prog.total)
	}
	cs.notePaceSoFar()
}

// noteCutPace gives the run's pace what cs showed up to its stop (a
// fault's cut, a quiet window's, a timeout's, the run's end), in one
// round and untouched by an earlier fault:
// the calls in flight when a window pauses the load are all cut, and
// their steps are the load's pace just before it (a fault's cut made
// then runs on at that pace). cs.mu is held, before the cut is noted.
func (cs *callState) noteCutPace() {
	if cs.round > 0 || len(cs.rec.Faults) > 0 {
		return
	}
	cs.notePaceSoFar()
}

// notePaceSoFar adds, with three notifications or more whose values rose,
// cs's seconds a unit from its first to its last so far, less this
// process's own stalls between them (readlag.go). cs.mu is held.
func (cs *callState) notePaceSoFar() {
	p := &cs.prog
	if p.count < 3 || len(p.values) == 0 || p.last <= p.values[0] {
		return
	}
	span := p.lastAt.Sub(p.firstAt) - cs.r.lag.within(p.firstAt, p.lastAt)
	cs.r.paces.add(cs.spec, p.firstAt, p.lastAt, span.Seconds()/(p.last-p.values[0]))
}
