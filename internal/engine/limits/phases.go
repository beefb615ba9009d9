package limits

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"
)

// findings is what the phases found, before the answers are drawn from it
// (answers.go).
type findings struct {
	took  time.Duration
	ended string
	notes []string // phases skipped, and why

	burstAt   time.Duration
	burstSent int
	burst     []obs
	reburst   []obs    // a second burst after idle, on warm connections (token bucket)
	rec       recovery // after the burst
	holdRec   recovery // after the hold, when the burst was not refused

	steps    []step
	overRate float64 // the first offered rate that was throttled; 0: none
	searched float64

	holdRate         float64
	holdFrom, holdTo time.Duration
	hold             []obs

	confirmed   bool
	confirmNext time.Duration // confirm: from the mid-period burst to the next accept

	scope   map[string]int // scope: throttled calls of each tool offered alone
	scopeOK map[string]int // and its accepted calls, in the second

	lock   lockProbe    // lockout: a patient client against an eager one
	counts []countProbe // counts: whether other requests take from the limit
	ident  identProbe   // identity: whether identities share a limit
	work   workProbe    // the process probe around steps, hold and idle

	capacity float64 // 0: not searched
	// capacityRerun counts steps run again, capacityLeftOut the seconds
	// left out of the checks: our client sent late in them (onTime).
	capacityRerun   int
	capacityLeftOut time.Duration
	capacityBound   string
	capacityNote    string
	// capacityLeftChecks: the checks a step could not judge were noted.
	capacityLeftChecks bool
}

// recovery is what probing one call at a time after a refusal found.
type recovery struct {
	done    bool
	ref     obs           // the refusal probed after
	from    time.Duration // the burst (or hold end) the delay is counted from
	found   bool          // a call was accepted again
	next    time.Duration // when it was sent, after from
	after   time.Duration // when it was sent, after ref was answered
	tried   time.Duration // how long it was probed
	firstOK time.Duration // the first of the burst's accepted calls to end, after from
	// sinceFirst is when the call accepted again was sent, after the
	// first of the burst's accepted calls was (the limiter's own start of
	// the period).
	sinceFirst time.Duration
	refused    int // probes refused before one was accepted
	// began is when probing began, after from: a busy client may take
	// the burst's last refusal in only after the first accepted call
	// ended.
	began time.Duration
}

// step is one offered rate of the doubling.
type step struct {
	rate          float64
	ok, throttled int
	calls         int
}

// burstPhase sends calls all at once after idle (the search starts idle).
func (s *Search) burstPhase(ctx context.Context) error {
	n := int(min(200, max(1, s.o.MaxRate)))
	at := time.Now().Add(20 * time.Millisecond)
	got, _, err := s.phase(ctx, "burst", func(fire firer) {
		for range n {
			fire(at, -1)
		}
	})
	s.f.burstAt, s.f.burstSent, s.f.burst = at.Sub(s.start), n, got
	return err
}

// stepPhase offers rates that double every Step, from half the burst
// accepted, until a step is throttled or MaxRate was offered; it keeps
// room in the budget for the hold.
func (s *Search) stepPhase(ctx context.Context) error {
	ok, _ := count(s.limitedOf(s.f.burst))
	r := min(max(1, float64(ok)/2), s.o.MaxRate)
	for {
		if s.left() < s.o.Step+5*time.Second {
			s.f.notes = append(s.f.notes, "the budget ended the doubling")
			return nil
		}
		var got []obs
		var err error
		cpu, d, read := s.measureCPU(ctx, func() {
			got, _, err = s.phase(ctx, "step", func(fire firer) {
				s.c.Pace(ctx, r, s.o.Step, func(at time.Time) { fire(at, -1) })
			})
		})
		okN, th := count(got)
		if read && th == 0 {
			s.f.work.stepCPU, s.f.work.stepD, s.f.work.stepCalls = s.f.work.stepCPU+cpu, s.f.work.stepD+d, s.f.work.stepCalls+len(got)
		}
		s.f.steps = append(s.f.steps, step{rate: r, ok: okN, throttled: th, calls: len(got)})
		s.f.searched = max(s.f.searched, r)
		if over(got) {
			// Throttled, even when the search was interrupted during the
			// step: the rate is below r, whatever else is unknown.
			s.f.overRate = r
		}
		if err != nil || ctx.Err() != nil || s.f.overRate > 0 {
			return err
		}
		if failing(got, 0.05) {
			// The server gives way (timeouts, errors) before any limit
			// refuses: more would only fail more.
			s.f.notes = append(s.f.notes, fmt.Sprintf("the doubling stopped at %s/s: more than 5 %% of its calls failed without being throttled", num(round(r, 1))))
			return nil
		}
		if r >= s.o.MaxRate {
			return nil
		}
		r = min(2*r, s.o.MaxRate)
	}
}

// holdPhase offers twice the first throttled rate (at most MaxRate) for
// about a third of what the budget leaves, 4 to 10 s.
func (s *Search) holdPhase(ctx context.Context) error {
	if s.f.overRate == 0 {
		return nil
	}
	r := min(2*s.f.overRate, s.o.MaxRate)
	d := min(max(s.left()*35/100, 4*time.Second), 10*time.Second, s.left()-time.Second)
	if d < 2*time.Second {
		s.f.notes = append(s.f.notes, "no budget left for the hold")
		return nil
	}
	s.f.holdRate, s.f.holdFrom = r, s.now()
	var got []obs
	var err error
	cpu, took, read := s.measureCPU(ctx, func() {
		got, _, err = s.phase(ctx, "hold", func(fire firer) {
			s.c.Pace(ctx, r, d, func(at time.Time) { fire(at, -1) })
		})
	})
	if read {
		s.f.work.holdCPU, s.f.work.holdD = cpu, took
	}
	s.f.holdTo = s.f.holdFrom + d
	s.f.hold = got
	s.f.searched = max(s.f.searched, r)
	if err != nil || s.f.rec.done {
		return err
	}
	if ref, ok := lastRefusal(got); ok {
		return s.recoverAfter(ctx, "recover", ref, ref.answered, &s.f.holdRec)
	}
	return nil
}

// minGap is the shortest pause between accepted calls that separates two
// clumps when rate is offered: four intervals, and at least 100 ms.
func minGap(rate float64) time.Duration {
	return max(100*time.Millisecond, time.Duration(4*float64(time.Second)/rate))
}

// holdPeriod is the hold's periodic pattern, if it has one.
func (s *Search) holdPeriod() (periodic, bool) {
	if len(s.f.hold) == 0 {
		return periodic{}, false
	}
	hold := s.limitedOf(s.f.hold)
	p, ok := findPeriod(okTimes(hold), minGap(s.f.holdRate))
	if !ok || !gapsRefused(hold, p, s.f.holdRate*float64(len(hold))/float64(len(s.f.hold))) {
		return periodic{}, false
	}
	return p, true
}

// confirmPhase tells a fixed window from a sliding one: after at least a
// period of idle, a burst in the middle of a period (on the grid of the
// hold's clumps), then probes until a call is accepted again.
func (s *Search) confirmPhase(ctx context.Context) error {
	p, ok := s.holdPeriod()
	if _, isCap := s.isCap(); !ok || isCap {
		return nil
	}
	L := p.every
	if s.left() < 7*L/2+time.Second {
		s.f.notes = append(s.f.notes, "no budget left to confirm the window's kind")
		return nil
	}
	k := math.Ceil(float64(s.now()+L-L/2-p.starts[0]) / float64(L))
	mid := p.starts[0] + time.Duration(k)*L + L/2
	at := s.start.Add(mid)
	n := min(s.f.burstSent, int(math.Ceil(2*p.size)))
	spec := -1
	if ref, ok := lastRefusal(s.f.hold); ok {
		spec = s.spec(ref.tool)
	}
	if _, _, err := s.phase(ctx, "confirm", func(fire firer) {
		for range n {
			fire(at, spec)
		}
	}); err != nil {
		return err
	}
	got, _, err := s.phase(ctx, "confirm", func(fire firer) {
		var answers []<-chan obs
		for t := time.Now(); t.Sub(at) < 3*L/2 && s.c.WaitUntil(ctx, t); t = t.Add(s.o.Probe) {
			answers = append(answers, fire(t, spec))
			if anyAccepted(answers) {
				return
			}
		}
	})
	if first, ok := firstOK(got); ok {
		s.f.confirmed, s.f.confirmNext = true, first.sent-mid
	}
	return err
}

// reburstPhase measures a token bucket's burst again: the first burst
// opened a connection for each call, which spreads it out so much that
// the bucket refills meanwhile. After the hold, idle long enough for the
// bucket to fill (1.5 times what the first burst took at the rate found,
// plus half a second), a second burst goes out on the connections kept
// open since.
func (s *Search) reburstPhase(ctx context.Context) error {
	if len(s.f.hold) == 0 || s.windowed() {
		return nil
	}
	if _, isCap := s.isCap(); isCap {
		return nil
	}
	rate, _ := s.steady()
	ok, th := count(s.limitedOf(s.f.burst))
	if rate <= 0 || th == 0 {
		return nil
	}
	idle := time.Duration(1.5*float64(ok)/rate*float64(time.Second)) + 500*time.Millisecond
	if s.left() < idle+2*time.Second {
		s.f.notes = append(s.f.notes, "no budget left to measure the burst again on warm connections")
		return nil
	}
	n := min(s.f.burstSent, 2*ok+20)
	spec := -1
	if ref, found := lastRefusal(s.f.hold); found && len(s.toolNames()) > 1 {
		spec = s.spec(ref.tool)
	}
	at := time.Now().Add(idle)
	got, _, err := s.phase(ctx, "burst", func(fire firer) {
		for range n {
			fire(at, spec)
		}
	})
	s.f.reburst = got
	return err
}

// windowed reports whether the hold showed a window's periodic clumps.
func (s *Search) windowed() bool {
	p, ok := s.holdPeriod()
	return ok && !s.notAWindow(p)
}

// scopePhase offers each tool of the mix alone, at the hold's rate for
// 1.5 s, when the mix has more than one. Its accepted calls are counted
// over the last second: the first half second spends what the tool's
// budget saved while the others were offered.
func (s *Search) scopePhase(ctx context.Context) error {
	names := s.toolNames()
	if len(names) < 2 || s.f.holdRate == 0 {
		return nil
	}
	s.f.scope, s.f.scopeOK = map[string]int{}, map[string]int{}
	for _, name := range names {
		if s.left() < 5*time.Second/2 {
			s.f.notes = append(s.f.notes, "no budget left to offer each tool alone")
			return nil
		}
		spec := s.spec(name)
		began := s.now()
		got, _, err := s.phase(ctx, "scope", func(fire firer) {
			s.c.Pace(ctx, s.f.holdRate, 3*time.Second/2, func(at time.Time) { fire(at, spec) })
		})
		_, th := count(got)
		s.f.scope[name], s.f.scopeOK[name] = th, countIn(okTimes(got), began+time.Second/2-1, began+3*time.Second/2-1)
		if err != nil {
			return err
		}
	}
	return nil
}

// limitedOf keeps the calls of the tools that were ever throttled (all of
// them when none was).
func (s *Search) limitedOf(list []obs) []obs {
	limited := map[string]bool{}
	for _, o := range s.all {
		if o.throttled {
			limited[o.tool] = true
		}
	}
	for _, o := range list {
		if o.throttled {
			limited[o.tool] = true
		}
	}
	if len(limited) == 0 {
		return list
	}
	return slices.DeleteFunc(slices.Clone(list), func(o obs) bool { return !limited[o.tool] })
}

// sortBySent orders calls by when they were sent.
func sortBySent(list []obs) {
	slices.SortStableFunc(list, func(a, b obs) int {
		switch {
		case a.sent < b.sent:
			return -1
		case a.sent > b.sent:
			return 1
		}
		return 0
	})
}
