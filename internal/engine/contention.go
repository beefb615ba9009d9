package engine

import (
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/probes"
	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// Cuts under contention (issue 25). A quiet window pauses the load, so a
// call cut in it has the server's CPUs to itself: a server that goes on
// with a cut call for 150 ms of CPU ends it inside a 300 ms grace there,
// and past it when the load's own calls share the CPUs with it. Only a
// fault's cut during the load is cut under that contention, and over
// Streamable HTTP nothing on the wire follows a closed stream. So the
// sampler keeps, for each interval of the load, the server's CPU, its
// threads' run-queue wait, its busiest thread and the client's calls in
// flight (loadInterval), and the faults' cut times; the windows measure
// what one cut call costs the server after its cut; and the projection
// (projection.go) shares each interval's CPU among the calls then
// runnable.

// loadInterval is one sampling interval of the load, from the server's
// threads (schedstat) and the client.
type loadInterval struct {
	end     time.Time
	secs    float64 // its length
	cpu     float64 // the server's threads' time on a CPU
	wait    float64 // their time waiting for a CPU
	busiest float64 // the longest one thread was runnable
	live    float64 // the client's calls in flight, on average
	// unknown: schedstat was not read at one end, or the read was slow
	// (longer than the sampler's gap): the interval's figures are not
	// known, but the load ran through it.
	unknown bool
}

// maxIntervals bounds the intervals kept: an hour at the default 100 ms
// sampling. Later intervals are not kept, and cuts after the last one
// kept are not projected.
const maxIntervals = 36000

// noteInterval adds the interval that ends with ps (read at now), from the
// previous sample's reading, and returns it for the results file; nil when
// either reading lacks schedstat or the interval spans a pause. pr.mu is
// held.
func (pr *probeRun) noteInterval(ps probes.ProcessSample, now time.Time) *results.SchedInterval {
	prev, at, live0 := pr.schedPrev, pr.schedAt, pr.schedLive
	live := pr.r.inflight.liveTime(now)
	pr.schedPrev, pr.schedAt, pr.schedLive = ps, now, live
	d, ok := probes.ThreadsBetween(prev, ps)
	el := now.Sub(at)
	if at.IsZero() || el <= 0 { // the first reading, or the first after a pause
		return nil
	}
	if !ok || el > pr.client.gap {
		if len(pr.intervals) < maxIntervals {
			pr.intervals = append(pr.intervals, loadInterval{end: now, secs: el.Seconds(), unknown: true})
		}
		return nil
	}
	if len(pr.intervals) < maxIntervals {
		pr.intervals = append(pr.intervals, loadInterval{end: now, secs: el.Seconds(), cpu: d.OnCPU, wait: d.Wait,
			busiest: d.Busiest, live: float64(max(live-live0, 0)) / float64(el)})
	}
	return &results.SchedInterval{OnCPUS: round6(d.OnCPU), WaitS: round6(d.Wait), BusiestS: round6(d.Busiest),
		LiveS: round6(max(live-live0, 0).Seconds())}
}

// restInterval forgets the last reading: no interval spans a quiet window.
// pr.mu is held.
func (pr *probeRun) restInterval() {
	pr.schedPrev, pr.schedAt, pr.schedLive = probes.ProcessSample{}, time.Time{}, 0
}

// cutLog keeps the moments the faults cut calls during the load (a
// task's tasks/cancel is not a cut: cancelling a task is cooperative).
type cutLog struct {
	mu    sync.Mutex
	times []time.Time
}

// maxCuts bounds the cuts kept; later ones are not projected.
const maxCuts = 100000

// note keeps one cut, made at.
func (l *cutLog) note(at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.times) < maxCuts {
		l.times = append(l.times, at)
	}
}

// list returns the cuts kept, in time order.
func (l *cutLog) list() []time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := slices.Clone(l.times)
	slices.SortFunc(out, time.Time.Compare)
	return out
}

// contention projects the faults' cuts through the load's intervals
// (projection.go), when the process probe is the only server-side
// evidence; nil when it is not, or no window measured what a cut costs,
// or no fault cut a call. Work under a clock tick a cut is a server that
// stops: nothing to project. pr.mu is held.
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
	margin := pr.r.plan.workProof() - grace
	c := &report.Contention{WorkPerCutS: round6(work), Windows: n, GraceMs: ms(grace), MarginMs: ms(margin), WorstShare: 1}
	if work < cpuTick {
		return c
	}
	for _, p := range projectCuts(pr.intervals, cuts, work, float64(runtime.NumCPU()), report.ContentionHorizonGraces*grace) {
		c.Cuts++
		if p.share < 1 {
			c.Contended++
		}
		if p.end > grace+margin {
			c.PastGrace++
		}
		if e := ms(p.end); e > c.WorstEndMs {
			c.WorstAtMs, c.WorstEndMs = ms(p.cut.Sub(pr.r.began)), e
			c.WorstShare, c.WorstLive = round6(p.share), round6(p.live)
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
		k := w.Cancelled
		if w.FollowedCut {
			k++
		}
		if k == 0 || w.GraceMs <= 0 || w.TasksRunningOn > 0 {
			continue
		}
		per = append(per, w.GraceCPUS/float64(k))
	}
	if len(per) == 0 {
		return 0, 0
	}
	slices.Sort(per)
	m := len(per) / 2
	if len(per)%2 == 0 {
		return (per[m-1] + per[m]) / 2, len(per)
	}
	return per[m], len(per)
}
