package engine

import (
	"os"
	"runtime"
	"sync/atomic"
	"time"
)

// One processor while the run needs little CPU (issue 28, CPU per call).
// With more than one P, every goroutine the runtime makes ready while a P
// is idle (a timer that fires, a worker handed a tick, a response read)
// also wakes a second thread to look for work, which mostly finds none and
// sleeps again: a futex call and two thread switches, on a VM the dearest
// part of a call. A load generator at a few hundred calls a second does
// that on nearly every call, and uses a fraction of one CPU. So while the
// process's own CPU use stays low the run sets GOMAXPROCS to 1 (the load
// starts so), and it gives the runtime back its default as soon as the use
// climbs toward a full CPU, before the pacer could fall behind
// (pacerLateBound is 1 s; the adapter looks every procWindow), or as soon
// as the process keeps stalling (the read-lag monitor woke more than
// lagMin late in procStallsRaise of the last procStallSpan windows, or
// late by procStallRaise in all): on a machine busy with other work the
// kernel shares the CPUs by thread, so a process with one running thread
// gets less of them, and a thread that waits for a CPU holds up every
// timer of the run (faults and timeouts act late). One stall alone is not
// that: a quiet machine stalls the run now and then too (5–31 ms, about
// once in 10 s at 400 calls/s, the server on the same two cores), and a
// first version that gave up the one P at any stall did so in four runs
// of five there, at up to a quarter more CPU. After stalls that kept
// coming it goes back to one P only after procStallQuiet windows without
// one; a single stall on the default still restarts the count of quiet
// windows that the way back needs. At the end of the run the default is
// restored. A GOMAXPROCS set in the environment is the user's choice: then
// nothing changes.

// procWindow is how often the adapter reads the process's CPU time.
// procUp is the CPU use (in CPUs, averaged over procUpWindows windows) at
// which one P gives way to the default (as do stalls that keep coming:
// procStallsRaise, procStallRaise); procDown the use (averaged over
// procDownWindows, with no stall in them) under which the default gives
// way to one P again, and procStay how long the default stays at least
// once restored.
const (
	procWindow      = 100 * time.Millisecond
	procUp          = 0.5
	procUpWindows   = 3
	procDown        = 0.3
	procDownWindows = 20
	procStay        = 5 * time.Second
	// procStallQuiet is how many windows without a stall it takes to go
	// back to one P once the process has kept stalling: a machine busy
	// enough for that is likely to again, and every switch stops the
	// world.
	procStallQuiet = 300
	// procStallSpan is the windows over which stalls are counted;
	// procStallsRaise how many of them must have stalled, or procStallRaise
	// how late the monitor woke in them all, for the default to come back.
	// The way back to one P needs procDownWindows quiet windows, more than
	// procStallSpan, so the stalls that raised it have left the ring by
	// then and cannot raise it again at once (checked below, at compile
	// time).
	procStallSpan   = 10
	procStallsRaise = 3
	procStallRaise  = 50 * time.Millisecond
)

// procAdapter switches GOMAXPROCS between 1 and the runtime's default. It
// is driven by one goroutine (tick) and stopped by another once that
// goroutine has ended.
type procAdapter struct {
	one     bool
	cpu     func() (time.Duration, bool) // the process's CPU time so far
	stalls  func() time.Duration         // this process's stalls so far (readlag.go)
	set     func(n int)                  // sets GOMAXPROCS (0: the default)
	lastAt  time.Time
	lastCPU time.Duration
	lastSt  time.Duration
	quiet   int                          // windows since the last stall
	stalled bool                         // the process kept stalling during the run
	late    [procStallSpan]time.Duration // each of the last windows' stalls, a ring
	raised  time.Time                    // when the default was last restored
	uses    [procDownWindows]float64     // the last windows' CPU use, a ring
	n       int                          // windows seen
}

// This fails to compile if procStallSpan exceeds procDownWindows.
var _ [procDownWindows - procStallSpan]struct{}

// procsHeld is set while an adapter runs: GOMAXPROCS is the process's, so
// of runs that overlap in one process (tests) only the first adapts it.
var procsHeld atomic.Bool

// newProcAdapter returns the adapter for this process, reading its stalls
// from stalls, or nil when there is nothing to adapt: one CPU, GOMAXPROCS
// set by the user, no way to read the process's CPU time, or another
// run's adapter at work.
func newProcAdapter(stalls func() time.Duration) *procAdapter {
	if _, set := os.LookupEnv("GOMAXPROCS"); set || runtime.GOMAXPROCS(0) < 2 {
		return nil
	}
	if _, ok := processCPU(); !ok || !procsHeld.CompareAndSwap(false, true) {
		return nil
	}
	return &procAdapter{cpu: processCPU, stalls: stalls, set: setProcs}
}

// setProcs sets GOMAXPROCS to n, or back to the runtime's default (which
// follows the CPU limit of a container again) for 0.
func setProcs(n int) {
	if n == 0 {
		runtime.SetDefaultGOMAXPROCS()
		return
	}
	runtime.GOMAXPROCS(n)
}

// tick takes a reading when a window has passed since the last, and
// switches when the use calls for it. A nil adapter does nothing.
func (pa *procAdapter) tick(now time.Time) {
	if pa == nil || !pa.lastAt.IsZero() && now.Sub(pa.lastAt) < procWindow {
		return
	}
	cpu, ok := pa.cpu()
	if !ok {
		return
	}
	st := pa.stalls()
	if pa.lastAt.IsZero() {
		// The load starts on one P: most runs need no more, and one
		// that does has it back within procUpWindows windows.
		pa.lastAt, pa.lastCPU, pa.lastSt = now, cpu, st
		pa.set(1)
		pa.one = true
		return
	}
	el := now.Sub(pa.lastAt)
	pa.uses[pa.n%len(pa.uses)] = float64(cpu-pa.lastCPU) / float64(el)
	pa.late[pa.n%len(pa.late)] = st - pa.lastSt
	pa.n++
	pa.quiet++
	if st > pa.lastSt {
		pa.quiet = 0 // the monitor woke late: this process waited for a CPU
	}
	keeps := pa.keepsStalling()
	pa.stalled = pa.stalled || keeps
	needQuiet := procDownWindows
	if pa.stalled {
		needQuiet = procStallQuiet
	}
	pa.lastAt, pa.lastCPU, pa.lastSt = now, cpu, st
	switch {
	case pa.one && (keeps || pa.n >= procUpWindows && pa.mean(procUpWindows) >= procUp):
		pa.set(0)
		pa.one, pa.raised = false, now
	case !pa.one && now.Sub(pa.raised) >= procStay && pa.quiet >= needQuiet && pa.n >= procDownWindows && pa.mean(procDownWindows) < procDown:
		pa.set(1)
		pa.one = true
	}
}

// keepsStalling reports whether the last procStallSpan windows stalled
// often or long enough to say the machine keeps this process waiting.
func (pa *procAdapter) keepsStalling() bool {
	n, sum := 0, time.Duration(0)
	for _, d := range pa.late {
		if d > 0 {
			n++
			sum += d
		}
	}
	return n >= procStallsRaise || sum >= procStallRaise
}

// mean is the CPU use over the last k windows (k at most pa.n).
func (pa *procAdapter) mean(k int) float64 {
	sum := 0.0
	for i := 1; i <= k; i++ {
		sum += pa.uses[(pa.n-i)%len(pa.uses)]
	}
	return sum / float64(k)
}

// stop gives the runtime back its default, and the process to the next
// run's adapter.
func (pa *procAdapter) stop() {
	if pa == nil {
		return
	}
	if pa.one {
		pa.set(0)
		pa.one = false
	}
	procsHeld.Store(false)
}
