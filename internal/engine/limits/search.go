// Package limits is the search behind `mcpchaos limits`: a bounded
// sequence of phases, each a small load sent through the engine (an
// engine.Script), whose answers say what a server's rate limit is and what
// shape it has (docs/limits-benchmark.md).
//
// The phases, in order: a burst of calls at once after idle (burst); one
// call at a time after the burst's refusals until one is accepted again
// (recover: Retry-After honesty, and how the limiter comes back); offered
// rates doubling every step until throttling (step); a hold at about twice
// the first throttled rate (hold: the sustained rate, the window's
// pattern, overload); for a window, a burst in the middle of a period
// after idle (confirm: fixed or sliding); each tool alone (scope); and,
// when the scenario has checks, the highest rate at which they hold
// (capacity). Each inference is a function of the calls' outcomes over
// time (infer.go), tested on synthetic series.
package limits

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/engine"
	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// Options bound and tune the search. The zero value of each field is its
// default.
type Options struct {
	// MaxRate is the most calls per second ever offered (default 1000);
	// a burst is at most this many calls at once, and at most 200.
	MaxRate float64
	// Budget bounds the whole search (default 60 s).
	Budget time.Duration
	// Probe is the spacing of the one-at-a-time probes (default 50 ms).
	Probe time.Duration
	// Step is how long each offered rate of the doubling lasts (default 2 s).
	Step time.Duration
	// Checks are the scenario's checks on anything but limits.*: the
	// capacity is the highest rate at which they all hold.
	Checks []report.Check
	// Rules aggregate a capacity step's calls to evaluate Checks.
	Rules report.Rules
	// MaxInFlight bounds the calls in flight (default 1000); a call that
	// finds no room is not sent.
	MaxInFlight int
}

func (o Options) withDefaults() Options {
	if o.MaxRate <= 0 {
		o.MaxRate = 1000
	}
	if o.Budget <= 0 {
		o.Budget = 60 * time.Second
	}
	if o.Probe <= 0 {
		o.Probe = 50 * time.Millisecond
	}
	o.Probe = max(o.Probe, time.Duration(float64(time.Second)/o.MaxRate))
	if o.Step <= 0 {
		o.Step = 2 * time.Second
	}
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = 1000
	}
	return o
}

// Search is one search: its Script runs it inside engine.Run, Result
// says what it found.
type Search struct {
	o     Options
	c     *engine.Caller
	start time.Time
	sem   chan struct{}
	as    int // the identity phases call as (-1: the target's headers)

	mu      sync.Mutex
	all     []obs
	dropped int

	f findings
}

// New returns a search with the options' defaults filled in.
func New(o Options) *Search {
	o = o.withDefaults()
	return &Search{o: o, sem: make(chan struct{}, o.MaxInFlight), as: -1}
}

// Budget is the search's bound, for the plan's Load.Duration.
func (s *Search) Budget() time.Duration { return s.o.Budget }

// Script is the engine.Script that runs the search.
func (s *Search) Script() engine.Script {
	return func(ctx context.Context, c *engine.Caller) {
		s.c, s.start = c, time.Now()
		err := s.run(ctx)
		s.f.took = time.Since(s.start)
		switch {
		case errors.Is(err, errStorm):
			s.f.ended = "errors"
		case ctx.Err() != nil && errors.Is(context.Cause(ctx), context.DeadlineExceeded):
			s.f.ended = "budget"
		case ctx.Err() != nil:
			s.f.ended = "interrupted"
		default:
			s.f.ended = "done"
		}
	}
}

// errStorm ends a search whose burst mostly failed (neither ok nor
// throttled): the server is down or the scenario is wrong.
var errStorm = errors.New("most calls failed")

// run runs the phases in order, each only if the budget leaves room.
// With checks the capacity comes before the lockout, counts and identity
// phases, which get what it leaves: it needs the budget most.
func (s *Search) run(ctx context.Context) error {
	phases := []func(context.Context) error{s.burstPhase, s.recoverPhase, s.stepPhase, s.holdPhase, s.idlePhase,
		s.confirmPhase, s.reburstPhase, s.scopePhase}
	asks := []func(context.Context) error{s.lockoutPhase, s.countsPhase, s.identityPhase}
	if len(s.o.Checks) > 0 {
		phases = append(append(phases, s.capacityPhase), asks...)
	} else {
		phases = append(phases, asks...)
	}
	for _, p := range phases {
		if err := p(ctx); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return nil
}

// left is the time the budget leaves.
func (s *Search) left() time.Duration { return s.o.Budget - time.Since(s.start) }

// now is the time since the search began.
func (s *Search) now() time.Duration { return time.Since(s.start) }

// phase runs body, which sends calls with fire, waits for every call it
// sent, and returns their obs in the order they were sent (and their
// records, in any order). A phase most of whose calls failed is errStorm.
func (s *Search) phase(ctx context.Context, name string, body func(fire firer)) ([]obs, records, error) {
	s.c.Phase(name)
	var mu sync.Mutex
	var wg sync.WaitGroup
	var got []obs
	var recs records
	fire := func(at time.Time, spec int) <-chan obs {
		ch := make(chan obs, 1)
		select {
		case s.sem <- struct{}{}:
		default:
			s.mu.Lock()
			s.dropped++
			s.mu.Unlock()
			close(ch)
			return ch
		}
		wg.Go(func() {
			defer func() { <-s.sem }()
			defer close(ch)
			rec, ok := s.c.CallAs(ctx, at, spec, s.as, name)
			if !ok {
				return
			}
			o := fromRecord(rec, s.start)
			mu.Lock()
			got = append(got, o)
			recs = append(recs, &rec)
			mu.Unlock()
			ch <- o
		})
		return ch
	}
	body(fire)
	wg.Wait()
	sortBySent(got)
	s.mu.Lock()
	s.all = append(s.all, got...)
	s.mu.Unlock()
	if name == "burst" && failing(got, 0.5) {
		return got, recs, errStorm
	}
	return got, recs, nil
}

// failing reports whether more than share of at least 10 calls failed:
// neither accepted nor throttled (timeouts, errors).
func failing(list []obs, share float64) bool {
	ok, th := count(list)
	failed := len(list) - ok - th
	return len(list) >= 10 && float64(failed) > share*float64(len(list))
}

// spec returns the index in the mix of tool, -1 (the weighted mix) when it
// is not there.
func (s *Search) spec(tool string) int {
	for i, c := range s.c.Calls() {
		if c.Tool == tool {
			return i
		}
	}
	return -1
}

// Result returns what the search found, as the summary's limits member.
// Call it after engine.Run returned.
func (s *Search) Result() *report.Limits {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.answers()
}

// toolNames lists the mix's tools, each once, in order.
func (s *Search) toolNames() []string {
	var names []string
	if s.c == nil {
		return nil
	}
	seen := map[string]bool{}
	for _, c := range s.c.Calls() {
		if !seen[c.Tool] {
			seen[c.Tool] = true
			names = append(names, c.Tool)
		}
	}
	return names
}

// firer sends one call at `at` of the mix's entry spec (-1: drawn) and
// returns a channel that delivers its obs when it is answered (closed
// without one when it was not sent or the search ended).
type firer func(at time.Time, spec int) <-chan obs

// records is a phase's records as the aggregator takes them.
type records []*results.Record
