package engine

import (
	"time"

	"github.com/mcpchaos/mcpchaos/internal/probes"
	"github.com/mcpchaos/mcpchaos/report"
)

// The projection (issue 25). A quiet window cuts calls with the load
// paused and measures the server's CPU through its grace: a server that
// stops spends next to nothing of what those calls had left to do, one
// that goes on spends it all (doneShare). For a server that goes on, each
// fault's cut during the load is given what its call had left (its
// progress total less its last value) at the pace its entry's other calls
// then kept (pace.go): that is when the server ended it. A server the
// windows saw stop inside their grace, though their cuts had more work
// left than fits in it (stopsInGrace), is given its share of what fits in
// the grace instead: one that stops slowly, after 250 ms of work a call
// had 720 ms of, stops after 250 ms of it under load too, at the load's
// pace. A cut that ends
// past the grace is a call the server went on with past it. Over
// Streamable HTTP in 2026-07-28, where the cut closed the call's stream
// and nothing on the wire can follow, that is the verdict's evidence
// (report/verdict/contention.go); elsewhere the wire judges and the
// projection is a note.

// slowedBy is how much slower than its entry's quickest pace a cut's
// projected pace must be for the load to have slowed it.
const slowedBy = 1.25

// projected is one fault's cut projected through the load's pace.
type projected struct {
	cut cutNote
	// paced: its entry kept a pace around it and its work left is known.
	paced bool
	// left is the units of progress it had left, pace the seconds a unit
	// its entry's calls took while it ran on, quick the entry's quickest.
	left, pace, quick float64
	end               time.Duration // after the cut; at most the horizon
	slowed, blind     bool
}

// leftOf is what the call of n had left to do, in units of its progress:
// its total less its last value, with its entry's largest total when the
// call gave none; false when neither is known, or the call had reported
// no progress (the server may not have begun it).
func leftOf(b *paceBook, n cutNote) (float64, bool) {
	if !n.progressed {
		return 0, false
	}
	total := n.total
	if total < 0 {
		t, ok := b.total(n.spec)
		if !ok {
			return 0, false
		}
		total = t
	}
	return max(total-n.last, 0), true
}

// projectCuts gives each of cuts the end its work left would reach at its
// entry's pace — all of it, or, for a server that stops inside the grace
// (inGrace), share of what fits in the grace at its entry's quickest pace
// — the pace over the time it would run, found by iteration from the pace
// of its first bucket; a cut whose entry has no pace there (none of its
// calls stepped) looks a second either side.
func projectCuts(b *paceBook, cuts []cutNote, share float64, inGrace bool, grace, horizon time.Duration) []projected {
	out := make([]projected, 0, len(cuts))
	for _, n := range cuts {
		p := projected{cut: n, blind: n.blind}
		left, ok := leftOf(b, n)
		quick, qok := b.quickest(n.spec)
		work := left // the units the server goes on with
		if inGrace && qok {
			work = share * min(left, grace.Seconds()/quick)
		}
		pace, pok := b.pace(n.spec, n.at, n.at.Add(paceBucket))
		if !pok {
			pace, pok = b.pace(n.spec, n.at.Add(-time.Second), n.at.Add(time.Second))
		}
		if !ok || !qok || !pok {
			out = append(out, p)
			continue
		}
		limit := horizon.Seconds()
		for range 5 {
			d := secsDur(min(work*pace, limit))
			next, ok := b.pace(n.spec, n.at, n.at.Add(d))
			if !ok || next == pace {
				break
			}
			pace = next
		}
		p.paced, p.left, p.pace, p.quick = true, left, pace, quick
		p.end = secsDur(min(work*pace, limit))
		p.slowed = pace >= slowedBy*quick
		out = append(out, p)
	}
	return out
}

// doneShare is the share of what the windows' cuts had left that the
// server did in their graces: for each window that cut calls, its grace's
// CPU over the CPU those calls' work left takes at their entries'
// quickest paces — each call's at most the grace, and all of them at most
// the grace on capacity CPUs (the most the server used in any second of
// the run): what a server that goes on can do in the grace. Each cut's
// first unit is taken off both: a server that ends the step it is in and
// stops has stopped. The median over the windows. A cut whose work left
// is not known (no progress yet, or no total) adds nothing: a server that
// goes on with it only raises the share, and one that stops spends
// nothing on it. False with no window left.
func doneShare(list []report.Window, cuts [][]cutNote, b *paceBook, capacity float64) (float64, bool) {
	var per []float64
	for i, w := range list {
		if !weighs(i, w, cuts) || windowCutCount(w) == 0 {
			continue
		}
		grace, need, first := w.GraceMs/1000, 0.0, 0.0
		for _, n := range cuts[i] {
			if secs, quick, ok := leftSecs(b, n); ok {
				all := min(secs, grace)
				need, first = need+all, first+min(quick, all)
			}
		}
		if need = min(need, grace*capacity) - first; need > 0 {
			per = append(per, max(w.GraceCPUS-first, 0)/need)
		}
	}
	return median(per), len(per) > 0
}

// stopsInGrace reports whether the windows saw the server stop inside
// their grace: some window cut a call with more work left than fits in
// the grace at its entry's quickest pace, and no such window measured
// leftover work after it. A slice burst (burst.go) is neither: its tail
// was busy, and its runtime's work may hide a cut call's.
func stopsInGrace(list []report.Window, cuts [][]cutNote, b *paceBook) bool {
	long := false
	for i, w := range list {
		if !weighs(i, w, cuts) || w.SliceBurst {
			continue // a slice burst's tail was busy: no sign of a stop
		}
		for _, n := range cuts[i] {
			if secs, _, ok := leftSecs(b, n); ok && secs > w.GraceMs/1000 {
				if w.Above() {
					return false
				}
				long = true
				break
			}
		}
	}
	return long
}

// weighs reports whether window i of the list (w) can weigh its cuts:
// they were kept, it measured a grace, and no task ran on beside it.
func weighs(i int, w report.Window, cuts [][]cutNote) bool {
	return i < len(cuts) && w.GraceMs > 0 && w.TasksRunningOn == 0
}

// leftSecs is what n's call had left, in seconds at its entry's quickest
// pace, and that pace; false when either is not known.
func leftSecs(b *paceBook, n cutNote) (secs, quick float64, ok bool) {
	left, lok := leftOf(b, n)
	quick, qok := b.quickest(n.spec)
	return left * quick, quick, lok && qok
}

// capacityOf is the most CPUs the server used over any second of its
// CPU-s readings cpu (one a sample: the load, its windows and its drain),
// and at least one.
func capacityOf(cpu []probes.Point) float64 {
	best, j := 1.0, 0
	for i := range cpu {
		for j < len(cpu) && cpu[j].T.Sub(cpu[i].T) < time.Second {
			j++
		}
		if j == len(cpu) {
			break
		}
		if r := (cpu[j].V - cpu[i].V) / cpu[j].T.Sub(cpu[i].T).Seconds(); r > best { // a reading that failed (NaN) is not
			best = r
		}
	}
	return best
}

// keepWindowCuts keeps the calls the window just added cut, beside it in
// windows.List (none for a window the list had no room for).
func (pr *probeRun) keepWindowCuts(cuts []cutNote) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	for len(pr.windowCuts) < len(pr.windows.List)-1 {
		pr.windowCuts = append(pr.windowCuts, nil)
	}
	if len(pr.windowCuts) < len(pr.windows.List) {
		pr.windowCuts = append(pr.windowCuts, cuts)
	}
}

// secsDur converts seconds to a duration.
func secsDur(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
