package engine

import (
	"slices"
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/probes"
	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// Cuts under contention (issue 25). A quiet window pauses the load, so a
// call cut in it has the server's CPUs to itself: a server that goes on
// with a cut call for 150 ms ends it inside a 300 ms grace there, and past
// it when the load's own calls stretch its steps. Only a fault's cut
// during the load is cut under that contention, and over Streamable HTTP
// nothing on the wire follows a closed stream. So the faults' cuts are
// logged with what their calls had left to do (cutLog), the windows
// measure how much of what their own cuts had left the server went on
// doing (doneShare), and the projection (projection.go) runs each fault's
// cut through the load's pace (pace.go). The sampler writes each interval
// of the load's schedstat to the results file (informative).

// noteInterval adds the interval that ends with ps (read at now), from the
// previous sample's reading, and returns it for the results file; nil when
// either reading lacks schedstat or the interval spans a pause. pr.mu is
// held.
func (pr *probeRun) noteInterval(ps probes.ProcessSample, now time.Time) *results.SchedInterval {
	prev, at, live0 := pr.schedPrev, pr.schedAt, pr.schedLive
	live := pr.r.inflight.liveTime(now)
	pr.schedPrev, pr.schedAt, pr.schedLive = ps, now, live
	pr.addThreads(ps)
	d, ok := probes.ThreadsBetween(prev, ps)
	el := now.Sub(at)
	if at.IsZero() || el <= 0 || !ok || el > pr.client.gap { // the first reading, the first after a pause, or a slow one
		return nil
	}
	return &results.SchedInterval{OnCPUS: round6(d.OnCPU), WaitS: round6(d.Wait), BusiestS: round6(d.Busiest),
		LiveS: round6(max(live-live0, 0).Seconds())}
}

// restInterval forgets the last reading: no interval spans a quiet window.
// pr.mu is held.
func (pr *probeRun) restInterval() {
	pr.schedPrev, pr.schedAt, pr.schedLive = probes.ProcessSample{}, time.Time{}, 0
}

// cutNote is one cut: when (a fault's), of which entry of the scenario's
// calls, and the call's progress then: whether it had any, its last value
// and its total (-1 when it gave none); blind when nothing on the wire
// follows it (a 2026-07-28 Streamable HTTP cut closes the call's stream).
type cutNote struct {
	at          time.Time
	spec        *CallSpec
	progressed  bool
	last, total float64
	blind       bool
}

// cutAt is the note of cs's cut at at (cs.mu held).
func (cs *callState) cutAt(at time.Time) cutNote {
	n := cutNote{at: at, spec: cs.spec, total: -1}
	if cs.prog.count > 0 && cs.round == 0 { // a retry's progress mixes its rounds'
		n.progressed, n.last = true, cs.prog.last
	}
	if cs.prog.hasTotal {
		n.total = cs.prog.total
	}
	n.blind = cs.info.Transport != "stdio" && cs.info.Era.Modern()
	return n
}

// cutLog keeps the faults' cuts during the load (a task's tasks/cancel is
// not a cut: cancelling a task is cooperative), and the calls a quiet
// window's sweep cut until the window takes them; taken is how many of
// the faults' cuts a window had been able to follow by then.
type cutLog struct {
	mu     sync.Mutex
	faults []cutNote
	swept  []cutNote
	taken  int
}

// maxCuts bounds the cuts kept, of the faults and of one window's sweep;
// later ones are not projected.
const maxCuts = 100000

// note keeps one fault's cut.
func (l *cutLog) note(n cutNote) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.faults) < maxCuts {
		l.faults = append(l.faults, n)
	}
}

// sweep keeps one call a window's sweep cut.
func (l *cutLog) sweep(n cutNote) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.swept) < maxCuts {
		l.swept = append(l.swept, n)
	}
}

// take returns the calls the sweep cut since the last take, and, when
// followed, the fault's cut the window began at: the last noted before
// from, and after the previous take (a cut is noted before its signal
// wakes a window, faults.go; one followed by no window that took it is
// not). clear drops what a window that ended early swept.
func (l *cutLog) take(followed bool, from time.Time) []cutNote {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.swept
	l.swept = nil
	if followed {
		for i := len(l.faults) - 1; i >= l.taken; i-- {
			if !l.faults[i].at.After(from) {
				out = append(out, l.faults[i])
				break
			}
		}
	}
	l.taken = len(l.faults)
	return out
}

// clear drops the sweep's notes a window did not take: it ended before
// its measurement, or the notes came after.
func (l *cutLog) clear() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.swept = nil
}

// list returns the faults' cuts, in time order.
func (l *cutLog) list() []cutNote {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := slices.Clone(l.faults)
	slices.SortFunc(out, func(a, b cutNote) int { return a.at.Compare(b.at) })
	return out
}

// contention projects the faults' cuts through the load's pace
// (projection.go), when the process probe is the only server-side
// evidence; nil when it is not, or no window measured what a cut costs,
// or no fault cut a call. A server whose windows saw it do less than half
// of what their cuts had left stops: nothing to project. pr.mu is held.
func (pr *probeRun) contention() *report.Contention {
	if !cutPingsWanted(pr.r.plan, len(pr.counts) > 0, pr.r.logs != nil, pr.proc != nil) {
		return nil
	}
	work, n := workPerCut(pr.windows.List)
	cuts := pr.r.cutTimes.list()
	if n == 0 || len(cuts) == 0 {
		return nil
	}
	grace := pr.r.plan.workGrace()
	c := &report.Contention{WorkPerCutS: round6(work), Windows: n, GraceMs: ms(grace), DoneShare: -1}
	share, ok := doneShare(pr.windows.List, pr.windowCuts, &pr.r.paces, capacityOf(pr.series[pr.procName]))
	if ok {
		c.DoneShare = round6(share)
	}
	if work < cpuTick || !ok || share < report.GoesOnShare {
		return c
	}
	horizon := report.ContentionHorizonGraces * grace
	inGrace := stopsInGrace(pr.windows.List, pr.windowCuts, &pr.r.paces)
	for _, p := range projectCuts(&pr.r.paces, cuts, share, inGrace, grace, horizon) {
		if !p.paced {
			c.Unpaced++
			continue
		}
		c.Cuts++
		if p.slowed {
			c.Contended++
		}
		if p.blind {
			c.Blind++
		}
		if p.end > grace {
			c.PastGrace++
			if p.blind {
				c.PastGraceBlind++
			}
		}
		if e := ms(p.end); e > c.WorstEndMs {
			c.WorstAtMs, c.WorstEndMs = ms(p.cut.at.Sub(pr.r.began)), e
			c.WorstLeft, c.WorstPaceMs, c.QuickPaceMs = round6(p.left), round6(p.pace*1000), round6(p.quick*1000)
		}
	}
	return c
}

// workPerCut is the CPU-s one cut call cost the server after its cut: for
// each window that cut calls (its sweep's, and the fault's cut it began
// at) and read the server at its cut, its grace's CPU over those calls;
// the median over the windows, and how many there were. A window measured
// while a task ran on after tasks/cancel is left out: its CPU may be the
// task's.
func workPerCut(list []report.Window) (float64, int) {
	var per []float64
	for _, w := range list {
		if k := windowCutCount(w); k > 0 && w.GraceMs > 0 && w.TasksRunningOn == 0 {
			per = append(per, w.GraceCPUS/float64(k))
		}
	}
	return median(per), len(per)
}

// windowCutCount is the calls w cut: its sweep's, and the fault's cut it
// began at.
func windowCutCount(w report.Window) int {
	k := w.Cancelled
	if w.FollowedCut {
		k++
	}
	return k
}

// median is the median of v (sorted in place); 0 for none.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	m := len(v) / 2
	if len(v)%2 == 0 {
		return (v[m-1] + v[m]) / 2
	}
	return v[m]
}
