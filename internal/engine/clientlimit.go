package engine

import (
	"errors"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// clientLimit names what our own process ran out of when err says so
// (results.LimitFDs, LimitPorts, LimitMemory), or "" when err is anything
// else. Such a call never reached the server: it is the load generator's
// limit, never the server's failure.
func clientLimit(err error) string {
	var errno syscall.Errno
	if err == nil || !errors.As(err, &errno) {
		return ""
	}
	switch errno {
	case syscall.EMFILE, syscall.ENFILE:
		return results.LimitFDs
	case syscall.EADDRNOTAVAIL:
		return results.LimitPorts
	case syscall.ENOMEM, syscall.ENOBUFS:
		return results.LimitMemory
	}
	return ""
}

// pacerLateBound is how far behind its schedule the pacer may hand out a
// tick before the tick counts as late: a process that cannot keep its own
// schedule offers less than the scenario's rate, and the server is judged
// on load it never got. Short stalls (a busy machine, a GC pause) stay
// under it.
const pacerLateBound = time.Second

// pacerLag keeps how far behind its schedule the pacer ran.
type pacerLag struct {
	ticks, late atomic.Int64
	maxNs       atomic.Int64
	// prevAt is the previous tick's offset in the schedule; lateSpanNs
	// sums the intervals that ended in a late tick; lastNs is the last
	// tick's lag (at the load's end: how far behind it ended). One pacer
	// goroutine calls tick.
	prevAt, lateSpanNs, lastNs atomic.Int64
}

// tick records one tick, at offset at in the schedule, handed out lag
// after its intended time.
func (p *pacerLag) tick(at, lag time.Duration) {
	p.ticks.Add(1)
	interval := int64(at) - p.prevAt.Swap(int64(at))
	p.lastNs.Store(int64(lag))
	if lag > pacerLateBound {
		p.late.Add(1)
		p.lateSpanNs.Add(max(interval, 0))
	}
	for {
		old := p.maxNs.Load()
		if int64(lag) <= old || p.maxNs.CompareAndSwap(old, int64(lag)) {
			return
		}
	}
}

func (p *pacerLag) result() report.PacerLag {
	return report.PacerLag{Ticks: int(p.ticks.Load()), Late: int(p.late.Load()),
		MaxLagMs: float64(p.maxNs.Load()) / 1e6, BoundMs: float64(pacerLateBound / time.Millisecond),
		LateSpanMs: float64(p.lateSpanNs.Load()) / 1e6, EndLagMs: float64(p.lastNs.Load()) / 1e6}
}

// measureLoadCPU reads this process's CPU time now and returns what, when
// the load has ended, notes the share of its CPUs it used over the load
// (report.PacerLag.CPUShare). Not with the built-in target served in this
// process, whose work it would count as the client's, nor where the
// process's CPU time cannot be read.
func (r *runner) measureLoadCPU() func() {
	if b := r.plan.Target.Builtin; b != nil && b.Transport != "stdio" {
		return func() {}
	}
	cpu0, ok := processCPU()
	t0 := time.Now()
	return func() {
		cpu1, ok1 := processCPU()
		wall := time.Since(t0)
		if !ok || !ok1 || wall <= 0 {
			return
		}
		r.loadCPUs = runtime.NumCPU()
		r.loadCPUShare = (cpu1 - cpu0).Seconds() / (wall.Seconds() * float64(r.loadCPUs))
	}
}
