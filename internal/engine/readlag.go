package engine

import (
	"sync"
	"time"
)

// Our own read lag, measured (issue 25). A message read later than the
// cancel plus the grace may have reached our socket in time and waited
// for this process to get the CPU to read it: arriving late is not working
// late. Over HTTP no fence orders a request's stream against anything
// else (fence.go), so the one measure of that is our own: a goroutine
// that asks to wake every lagTick and notes each time it woke more than
// lagMin late (a stall: the process, or its scheduler, did not run it).
// The stalls between a cancel and a late message are taken off the time
// between them before it is held against the grace (beyondGrace). It is a
// proxy: the reader of the stream is another goroutine, which a stall of
// the monitor's may have spared and the reverse, but on a machine short of
// CPU both wait for the same cores.

// lagTick is how often the monitor asks to wake; lagMin the least delay
// noted as a stall; maxLagStalls bounds the stalls kept (the oldest go).
const (
	lagTick      = 10 * time.Millisecond
	lagMin       = 5 * time.Millisecond
	maxLagStalls = 4096
)

// readLag holds the stalls of this process seen by the monitor.
type readLag struct {
	mu     sync.Mutex
	stalls []stall       // from: when the monitor should have run; to: when it did
	sum    time.Duration // every stall noted, summed (none dropped)
}

// start runs the monitor until stop is called. Each time it wakes it also
// calls each (nil: nothing), the run's other periodic work, so that the
// run pays one wake-up for both (latequeue.go). The next wake-up is due
// a tick after this one, whatever each took: while each runs (or waits,
// handing records to a busy collector) the monitor cannot see a stall, so
// an each that takes longer than lagMin past the tick counts as one. That
// errs toward the server: a stall noted is taken off late messages.
func (l *readLag) start(each func(now time.Time)) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTimer(lagTick)
		defer t.Stop()
		due := time.Now().Add(lagTick)
		for {
			select {
			case <-quit:
				return
			case <-t.C:
			}
			now := time.Now()
			if now.Sub(due) > lagMin {
				l.note(due, now)
			}
			if each != nil {
				each(now)
			}
			due = now.Add(lagTick)
			t.Reset(max(time.Until(due), 0))
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}

// startPeriodic starts the read-lag monitor, which also hands over the
// late queue's records, adapts GOMAXPROCS (Options.AdaptProcs; procs is
// nil without) and reads the memory against its limit: one periodic
// wake-up for the four.
func (r *runner) startPeriodic() (stop func(), procs *procAdapter) {
	r.lateQ = &lateQueue{r: r}
	if r.opts.AdaptProcs {
		procs = newProcAdapter(r.lag.total)
	}
	r.mem = newMemGuard("/sys/fs/cgroup")
	stop = r.lag.start(func(now time.Time) {
		r.lateQ.tick(now)
		procs.tick(now)
		r.mem.tick(now)
	})
	return stop, procs
}

// note keeps one stall.
func (l *readLag) note(from, to time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.stalls) >= maxLagStalls {
		l.stalls = append(l.stalls[:0], l.stalls[1:]...)
	}
	l.stalls = append(l.stalls, stall{from: from, to: to})
	l.sum += to.Sub(from)
}

// total returns every stall noted so far, summed.
func (l *readLag) total() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sum
}

// within returns how long this process stalled between a and b: the
// stalls' overlap with [a, b], summed.
func (l *readLag) within(a, b time.Time) time.Duration {
	if l == nil || !b.After(a) {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	total := time.Duration(0)
	for _, s := range l.stalls {
		from, to := s.from, s.to
		if from.Before(a) {
			from = a
		}
		if to.After(b) {
			to = b
		}
		if to.After(from) {
			total += to.Sub(from)
		}
	}
	return total
}
