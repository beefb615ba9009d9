package engine

import (
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/probes"
	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// pacedBook is a pace book from t0 for one entry, spec: answered calls that
// stepped at perUnit seconds a unit over each [from, to) ms, and reported
// total units.
func pacedBook(t0 time.Time, spec *CallSpec, total float64, spans ...[3]float64) *paceBook {
	var b paceBook
	b.start(t0)
	b.noteTotal(spec, total)
	for _, s := range spans {
		b.add(spec, t0.Add(time.Duration(s[0])*time.Millisecond), t0.Add(time.Duration(s[1])*time.Millisecond), s[2])
	}
	return &b
}

// TestProjectCuts: a cut is given what its call had left (or, when the
// windows saw the server stop inside the grace, its share of what fits in
// the grace) at the pace its kind of call kept while it ran on (found by
// iteration), its total from the call or its kind, a pace a second around
// it when none stepped beside it, and nothing when neither is known or
// the call had no progress.
func TestProjectCuts(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	spec, other := &CallSpec{Tool: "work"}, &CallSpec{Tool: "quick"}
	// Quick calls at 25 ms a unit early on, slowed to 75 ms from 2 s.
	book := pacedBook(t0, spec, 8, [3]float64{0, 175, 0.025}, [3]float64{100, 275, 0.025}, [3]float64{2000, 2525, 0.075},
		[3]float64{2100, 2625, 0.075}, [3]float64{2600, 3100, 0.075})
	cut := func(ms int, last, total float64) cutNote {
		return cutNote{at: at(ms), spec: spec, progressed: true, last: last, total: total, blind: true}
	}
	for _, tc := range []struct {
		name    string
		cut     cutNote
		share   float64
		inGrace bool
		paced   bool
		end     time.Duration
		slowed  bool
	}{
		{"at the quickest pace", cut(120, 2, 8), 1, false, true, 150 * time.Millisecond, false},
		{"at the load's slowed pace", cut(2050, 2, 8), 1, false, true, 450 * time.Millisecond, true},
		{"a server that stops inside the grace, after half", cut(2050, 2, 8), 0.5, true, true, 225 * time.Millisecond, true},
		// 30 units left, 12 of them fit in the grace at 25 ms: the windows
		// saw it do 0.8 of those, so it stops after 9.6 units at 75 ms.
		{"a server that stops slowly, inside the grace", cut(2050, 0, 30), 0.8, true, true, 720 * time.Millisecond, true},
		{"a server that goes on, its share under all", cut(2050, 0, 30), 0.8, false, true, time.Second, true},
		{"more than all of it is all of it", cut(2050, 2, 8), 1.6, false, true, 450 * time.Millisecond, true},
		{"the total of its kind when it gave none", cut(2050, 5, -1), 1, false, true, 225 * time.Millisecond, true},
		{"a pace a second around it", cut(1500, 2, 8), 1, false, true, 450 * time.Millisecond, true},
		{"not done within the horizon", cut(2050, 0, 100), 1, false, true, time.Second, true},
		{"no progress yet", cutNote{at: at(120), spec: spec, total: -1}, 1, false, false, 0, false},
		{"a kind that kept no pace", cutNote{at: at(120), spec: other, progressed: true, last: 1, total: 4}, 1, false, false, 0, false},
		{"no call of its kind stepped within a second", cut(5000, 2, 8), 1, false, false, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := projectCuts(book, []cutNote{tc.cut}, tc.share, tc.inGrace, 300*time.Millisecond, time.Second)
			if len(got) != 1 {
				t.Fatalf("%d cuts projected, want 1", len(got))
			}
			p := got[0]
			if p.paced != tc.paced || p.slowed != tc.slowed || p.blind != tc.cut.blind {
				t.Errorf("paced %v slowed %v blind %v, want %v %v %v", p.paced, p.slowed, p.blind, tc.paced, tc.slowed, tc.cut.blind)
			}
			if d := p.end - tc.end; d < -time.Millisecond || d > time.Millisecond {
				t.Errorf("ended %v after its cut, want %v", p.end, tc.end)
			}
		})
	}
}

// TestPaceBook: a call's pace counts in each bucket it stepped in, by how
// long; its kind's quickest is the 5th percentile of its calls' paces;
// calls before the load began, or with no span, are not counted.
func TestPaceBook(t *testing.T) {
	t0 := time.Unix(1000, 0)
	spec := &CallSpec{Tool: "work"}
	b := pacedBook(t0, spec, 8, [3]float64{0, 100, 0.02}, [3]float64{50, 150, 0.04})
	b.add(spec, t0.Add(-time.Second), t0.Add(time.Second), 1) // before the load began
	b.add(spec, t0.Add(time.Second), t0.Add(time.Second), 1)  // no span
	if p, ok := b.pace(spec, t0, t0.Add(50*time.Millisecond)); !ok || math.Abs(p-(0.02*0.1+0.04*0.05)/0.15) > 1e-9 {
		t.Errorf("pace over the first bucket %v %v, want the two calls weighted by their time in it", p, ok)
	}
	if p, ok := b.pace(spec, t0.Add(100*time.Millisecond), t0.Add(150*time.Millisecond)); !ok || math.Abs(p-0.04) > 1e-9 {
		t.Errorf("pace over the second bucket %v %v, want 0.04", p, ok)
	}
	if _, ok := b.pace(spec, t0.Add(time.Second), t0.Add(2*time.Second)); ok {
		t.Error("a pace where no call stepped")
	}
	if q, ok := b.quickest(spec); !ok || q != 0.02 {
		t.Errorf("quickest %v %v, want 0.02", q, ok)
	}
	if n, ok := b.total(spec); !ok || n != 8 {
		t.Errorf("total %v %v, want 8", n, ok)
	}
	if _, ok := b.quickest(&CallSpec{}); ok {
		t.Error("a quickest pace for a kind with no calls")
	}
}

// TestDoneShare: each window's grace CPU over what its cuts had left at
// their kind's quickest pace, each at most the grace and all at most the
// grace on the server's CPUs, each cut's first unit taken off both, the
// median; cuts with nothing known left add nothing, and windows with
// nothing known are left out.
func TestDoneShare(t *testing.T) {
	t0 := time.Unix(1000, 0)
	spec := &CallSpec{Tool: "work"}
	book := pacedBook(t0, spec, 8, [3]float64{0, 175, 0.025})
	slow := &CallSpec{Tool: "slow"}
	book.noteTotal(slow, 10)
	book.add(slow, t0, t0.Add(900*time.Millisecond), 0.1)
	left := func(last float64) cutNote { return cutNote{spec: spec, progressed: true, last: last, total: 8} }
	long := cutNote{spec: slow, progressed: true, last: 2, total: 10} // 800 ms left
	unknown := cutNote{spec: spec, total: -1}                         // cut before any progress
	one := func(cpu float64, cuts ...cutNote) ([]report.Window, [][]cutNote) {
		return []report.Window{{Cancelled: len(cuts), GraceMs: 300, GraceCPUS: cpu}}, [][]cutNote{cuts}
	}
	for _, tc := range []struct {
		name     string
		list     []report.Window
		cuts     [][]cutNote
		capacity float64
		want     float64
		ok       bool
	}{
		{"none", nil, nil, 2, 0, false},
		{"a server that stops", nil, nil, 2, 0, true},
		{"a server that ends the step it is in", nil, nil, 2, 0, true},
		{"a server that goes on", nil, nil, 2, 1, true},
		{"a cut with no progress adds nothing", nil, nil, 2, 1, true},
		{"each call at most the grace", nil, nil, 2, 1, true},
		{"all of them at most the grace on the server's CPUs", nil, nil, 1, 1, true},
		{"a window with nothing known left is left out", nil, nil, 2, 0, false},
		{"the median of three", []report.Window{{Cancelled: 1, GraceMs: 300, GraceCPUS: 0.15},
			{Cancelled: 1, GraceMs: 300, GraceCPUS: 0.075}, {Cancelled: 1, GraceMs: 300, GraceCPUS: 0.3}},
			[][]cutNote{{left(2)}, {left(2)}, {left(2)}}, 2, 1, true},
		{"a window beside a task that ran on is left out", []report.Window{{Cancelled: 1, GraceMs: 300, GraceCPUS: 0.15, TasksRunningOn: 1}},
			[][]cutNote{{left(2)}}, 2, 0, false},
	} {
		switch tc.name {
		case "a server that stops":
			tc.list, tc.cuts = one(0.01, left(2), left(6))
		case "a server that ends the step it is in":
			tc.list, tc.cuts = one(0.05, left(2), left(2))
		case "a server that goes on":
			tc.list, tc.cuts = one(0.2, left(2), left(6))
		case "a cut with no progress adds nothing":
			tc.list, tc.cuts = one(0.15, left(2), unknown)
		case "each call at most the grace":
			tc.list, tc.cuts = one(0.6, long, long)
		case "all of them at most the grace on the server's CPUs":
			tc.list, tc.cuts = one(0.3, long, long)
		case "a window with nothing known left is left out":
			tc.list, tc.cuts = one(0.15, unknown)
		}
		t.Run(tc.name, func(t *testing.T) {
			got, ok := doneShare(tc.list, tc.cuts, book, tc.capacity)
			if ok != tc.ok || math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("doneShare = %v %v, want %v %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

// TestCapacityOf: the most CPU-s a second the readings rose by over any
// second, at least one; a failed reading is not a rate.
func TestCapacityOf(t *testing.T) {
	t0 := time.Unix(1000, 0)
	pts := func(vs ...float64) []probes.Point {
		out := make([]probes.Point, len(vs))
		for i, v := range vs {
			out[i] = probes.Point{T: t0.Add(time.Duration(i) * 500 * time.Millisecond), V: v}
		}
		return out
	}
	for _, tc := range []struct {
		name string
		pts  []probes.Point
		want float64
	}{
		{"none", nil, 1},
		{"under a CPU", pts(0, 0.2, 0.4, 0.6), 1},
		{"two CPUs for a second", pts(0, 0.5, 1.5, 2.5, 2.6), 2},
		{"a failed reading", pts(0, math.NaN(), 1.8, 1.9), 1.8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := capacityOf(tc.pts); math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("capacityOf = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestWorkPerCut(t *testing.T) {
	for _, tc := range []struct {
		name string
		list []report.Window
		want float64
		n    int
	}{
		{"none", nil, 0, 0},
		{"a window that cut nothing and followed no cut", []report.Window{{GraceMs: 300, GraceCPUS: 0.2}}, 0, 0},
		{"the sweep's cuts and the one followed", []report.Window{{Cancelled: 3, FollowedCut: true, GraceMs: 300, GraceCPUS: 0.4}}, 0.1, 1},
		{"the median of three", []report.Window{
			{Cancelled: 1, GraceMs: 300, GraceCPUS: 0.15},
			{Cancelled: 2, GraceMs: 300, GraceCPUS: 0.1},
			{Cancelled: 1, GraceMs: 300, GraceCPUS: 0.3}}, 0.15, 3},
		{"a window beside a task that ran on is left out", []report.Window{
			{Cancelled: 1, GraceMs: 300, GraceCPUS: 0.15},
			{Cancelled: 1, GraceMs: 300, GraceCPUS: 0.9, TasksRunningOn: 1}}, 0.15, 1},
		{"a window that read no cut sample", []report.Window{{Cancelled: 1, GraceCPUS: 0.2}}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, n := workPerCut(tc.list)
			if math.Abs(got-tc.want) > 1e-9 || n != tc.n {
				t.Errorf("workPerCut = %v over %d windows, want %v over %d", got, n, tc.want, tc.n)
			}
		})
	}
}

// TestLiveTime: the calls' live time is the count in flight integrated
// over time, the count before each change counting up to it.
func TestLiveTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var s inflightSet
		s.timeLive()
		a, b := &callState{}, &callState{}
		s.add(a)
		time.Sleep(100 * time.Millisecond)
		s.add(b)
		time.Sleep(50 * time.Millisecond)
		s.remove(a)
		time.Sleep(30 * time.Millisecond)
		if got, want := s.liveTime(time.Now()), 100*time.Millisecond+2*50*time.Millisecond+30*time.Millisecond; got != want {
			t.Errorf("live time %v, want %v", got, want)
		}
	})
}

// TestProjectCutsIterates: a cut whose run-on reaches a slower stretch of
// the load is paced by it, the pace found again over each new span until
// it holds.
func TestProjectCutsIterates(t *testing.T) {
	t0 := time.Unix(1000, 0)
	spec := &CallSpec{Tool: "work"}
	book := pacedBook(t0, spec, 8, [3]float64{0, 500, 0.025}, [3]float64{500, 2000, 0.1})
	got := projectCuts(book, []cutNote{{at: t0.Add(400 * time.Millisecond), spec: spec, progressed: true, last: 2, total: 8}}, 1, false, 300*time.Millisecond, time.Second)
	// 0.025 over its first bucket, then 0.0625, 0.08125, 0.085, 0.0875
	// over the buckets each span meets: 6 units at 87.5 ms.
	if len(got) != 1 || !got[0].paced || got[0].end < 524*time.Millisecond || got[0].end > 526*time.Millisecond {
		t.Errorf("projected %+v, want 525ms at 87.5ms a unit", got)
	}
}

// TestCutLogTake: a window takes what its sweep cut and, when it began at
// a fault's cut, the last one noted before it since the previous window's
// take; one already taken, or noted after, is not followed; clear drops a
// sweep no window took.
func TestCutLogTake(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	var l cutLog
	l.note(cutNote{at: at(1), last: 1})
	l.note(cutNote{at: at(2), last: 2})
	l.sweep(cutNote{last: 5})
	if got := l.take(true, at(3)); len(got) != 2 || got[0].last != 5 || got[1].last != 2 {
		t.Errorf("first window took %+v, want the sweep's and the cut at 2s", got)
	}
	if got := l.take(true, at(4)); len(got) != 0 {
		t.Errorf("second window took %+v, want nothing: the cut at 2s was the first's", got)
	}
	l.note(cutNote{at: at(6), last: 3})
	if got := l.take(true, at(5)); len(got) != 0 {
		t.Errorf("a window before the cut took %+v, want nothing", got)
	}
	l.sweep(cutNote{last: 7})
	l.clear()
	if got := l.take(false, at(7)); len(got) != 0 {
		t.Errorf("took %+v after clear, want nothing", got)
	}
	if got := l.list(); len(got) != 3 || got[2].last != 3 {
		t.Errorf("faults' cuts %+v, want all three in time order", got)
	}
}

// TestNotePace: an answered call gives its kind its total and, with three
// rising notifications or more, its pace; so does a call at its cut (its
// pace up to it, not its total); an answer after a cut, a retry's rounds
// and a call a fault touched before give nothing.
func TestNotePace(t *testing.T) {
	t0 := time.Unix(1000, 0)
	for _, tc := range []struct {
		name      string
		n         int
		set       func(cs *callState)
		cut       bool // noted at its cut (noteCutPace), not its answer
		pace, tot bool
	}{
		{"answered, four notifications", 4, nil, false, true, true},
		{"two notifications: its total only", 2, nil, false, false, true},
		{"answered after its cut", 4, func(cs *callState) { cs.cancelAt = t0 }, false, false, false},
		{"a retry", 4, func(cs *callState) { cs.round = 1 }, false, false, false},
		{"a fault fired", 4, func(cs *callState) { cs.rec.Faults = []results.Fault{{Kind: "stall_read"}} }, false, false, false},
		{"cut: its pace up to the cut", 4, nil, true, true, false},
		{"cut after two notifications", 2, nil, true, false, false},
		{"cut in a retry", 4, func(cs *callState) { cs.round = 1 }, true, false, false},
		{"cut after a fault fired", 4, func(cs *callState) { cs.rec.Faults = []results.Fault{{Kind: "stall_read"}} }, true, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &runner{}
			r.paces.start(t0)
			spec := &CallSpec{Tool: "work"}
			cs := &callState{r: r, spec: spec}
			for i := 1; i <= tc.n; i++ {
				cs.prog.add(t0.Add(time.Duration(i)*25*time.Millisecond), float64(i), 8, true)
			}
			if tc.set != nil {
				tc.set(cs)
			}
			if tc.cut {
				cs.noteCutPace()
			} else {
				cs.notePace()
			}
			q, pace := r.paces.quickest(spec)
			_, tot := r.paces.total(spec)
			if pace != tc.pace || tot != tc.tot || pace && math.Abs(q-0.025) > 1e-9 {
				t.Errorf("pace %v (%v), total %v; want pace %v (0.025), total %v", pace, q, tot, tc.pace, tc.tot)
			}
		})
	}
}

// TestStopsInGrace: a window that cut a call with more work left than fits
// in its grace tells whether the server stopped inside it (no leftover
// work after the grace) or went on; windows whose cuts fit in the grace
// tell nothing.
func TestStopsInGrace(t *testing.T) {
	t0 := time.Unix(1000, 0)
	spec := &CallSpec{Tool: "work"}
	book := pacedBook(t0, spec, 30, [3]float64{0, 175, 0.025})
	long := []cutNote{{spec: spec, progressed: true, last: 2, total: 30}} // 700 ms left
	short := []cutNote{{spec: spec, progressed: true, last: 26, total: 30}}
	quiet := report.Window{Cancelled: 1, GraceMs: 300, ThresholdS: 0.03}
	busy := report.Window{Cancelled: 1, GraceMs: 300, ThresholdS: 0.03, LeftoverCPUS: 0.3}
	slices := report.Window{Cancelled: 1, GraceMs: 300, ThresholdS: 0.03, LeftoverCPUS: 0.04, Burst: true, SliceBurst: true}
	for _, tc := range []struct {
		name string
		list []report.Window
		cuts [][]cutNote
		want bool
	}{
		{"no window", nil, nil, false},
		{"stopped inside the grace", []report.Window{quiet}, [][]cutNote{long}, true},
		{"went on past it", []report.Window{quiet, busy}, [][]cutNote{long, long}, false},
		{"cuts that fit in the grace tell nothing", []report.Window{quiet}, [][]cutNote{short}, false},
		{"a slice burst tells nothing", []report.Window{slices}, [][]cutNote{long}, false},
		{"a slice burst beside a stop", []report.Window{slices, quiet}, [][]cutNote{long, long}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := stopsInGrace(tc.list, tc.cuts, book); got != tc.want {
				t.Errorf("stopsInGrace = %v, want %v", got, tc.want)
			}
		})
	}
}
