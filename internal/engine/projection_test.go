package engine

import (
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpchaos/mcpchaos/report"
)

// ivs makes n intervals of 100 ms from t0, each like iv.
func ivs(t0 time.Time, n int, iv loadInterval) []loadInterval {
	out := make([]loadInterval, n)
	for i := range out {
		out[i] = iv
		out[i].secs = 0.1
		out[i].end = t0.Add(time.Duration(i+1) * 100 * time.Millisecond)
	}
	return out
}

func TestProjectCuts(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	idle := loadInterval{cpu: 0.05, live: 3}
	// Two CPUs, both in use, the threads waiting: contended.
	busy := loadInterval{cpu: 0.2, wait: 0.05, live: 3}
	// One thread runnable throughout, one CPU's worth: an event loop.
	loop := loadInterval{cpu: 0.1, busiest: 0.1, live: 1}
	for _, tc := range []struct {
		name  string
		ivs   []loadInterval
		cuts  []time.Time
		work  float64
		want  []time.Duration // each cut's end after it
		share []float64
	}{
		{"a CPU of its own while the server has CPU to spare", ivs(t0, 10, idle), []time.Time{at(150)}, 0.15,
			[]time.Duration{150 * time.Millisecond}, []float64{1}},
		{"an even share of two CPUs with three live calls", ivs(t0, 20, busy), []time.Time{at(100)}, 0.15,
			[]time.Duration{300 * time.Millisecond}, []float64{0.5}},
		{"two cuts share with each other and the live calls", ivs(t0, 20, busy), []time.Time{at(100), at(100)}, 0.1,
			[]time.Duration{250 * time.Millisecond, 250 * time.Millisecond}, []float64{0.4, 0.4}},
		{"one thread serves every call", ivs(t0, 20, loop), []time.Time{at(200)}, 0.1,
			[]time.Duration{200 * time.Millisecond}, []float64{0.5}},
		{"a pause between intervals gives a CPU of its own",
			append(ivs(t0, 2, busy), ivs(at(1000), 5, busy)...), []time.Time{at(150)}, 0.2,
			// 50 ms at 0.5 (25 ms of work), then the pause from 200 ms: 175 ms more.
			[]time.Duration{225 * time.Millisecond}, []float64{0.5}},
		{"a cut just before a pause longer than the horizon",
			append(ivs(t0, 2, busy), ivs(at(3000), 5, busy)...), []time.Time{at(190)}, 0.1,
			// 10 ms at 0.5 (5 ms of work), then the pause: 95 ms more.
			[]time.Duration{105 * time.Millisecond}, []float64{0.5}},
		{"a cut in a pause", append(ivs(t0, 2, busy), ivs(at(3000), 5, busy)...), []time.Time{at(1000)}, 0.1,
			[]time.Duration{100 * time.Millisecond}, []float64{1}},
		{"a cut before the first interval runs alone until it",
			ivs(at(200), 10, busy), []time.Time{at(110)}, 0.15,
			// 190 ms alone (90 ms to the first interval at 300 ms), then 60 ms more at 0.5: 120 ms.
			[]time.Duration{210 * time.Millisecond}, []float64{0.5}},
		{"an interval not read takes the share of the one before it",
			append(ivs(t0, 2, busy), func() []loadInterval {
				u := ivs(at(200), 4, loadInterval{unknown: true})
				return append(u, ivs(at(600), 5, idle)...)
			}()...), []time.Time{at(150)}, 0.2,
			// 50 ms at 0.5, 400 ms not read at 0.5 (225 ms of work so far: done at 0.5 by 350 ms).
			[]time.Duration{400 * time.Millisecond}, []float64{0.5}},
		{"past the last interval the rest runs alone", ivs(t0, 3, busy), []time.Time{at(250)}, 0.1,
			[]time.Duration{125 * time.Millisecond}, []float64{0.5}},
		{"a cut after the last interval is not projected", ivs(t0, 3, busy), []time.Time{at(400)}, 0.1, nil, nil},
		{"no work, nothing projected", ivs(t0, 3, busy), []time.Time{at(100)}, 0, nil, nil},
		{"not done within the horizon", ivs(t0, 40, loadInterval{cpu: 0.2, wait: 0.1, live: 39}), []time.Time{at(100)}, 0.5,
			[]time.Duration{time.Second}, []float64{0.05}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := projectCuts(tc.ivs, tc.cuts, tc.work, 2, time.Second)
			if len(got) != len(tc.want) {
				t.Fatalf("%d cuts projected, want %d: %+v", len(got), len(tc.want), got)
			}
			for i, p := range got {
				if d := p.end - tc.want[i]; d < -time.Millisecond || d > time.Millisecond {
					t.Errorf("cut %d ended %v after it, want %v", i, p.end, tc.want[i])
				}
				if math.Abs(p.share-tc.share[i]) > 1e-9 {
					t.Errorf("cut %d: least share %v, want %v", i, p.share, tc.share[i])
				}
			}
		})
	}
}

func TestContended(t *testing.T) {
	for _, tc := range []struct {
		name string
		iv   loadInterval
		want bool
	}{
		{"idle", loadInterval{secs: 0.1, cpu: 0.05}, false},
		{"threads waited for a CPU", loadInterval{secs: 0.1, cpu: 0.05, wait: 0.02}, true},
		{"one thread runnable throughout", loadInterval{secs: 0.1, cpu: 0.095, busiest: 0.095}, true},
		{"every CPU in use", loadInterval{secs: 0.1, cpu: 0.18}, true},
		{"busy but with CPU to spare", loadInterval{secs: 0.1, cpu: 0.15, busiest: 0.08, wait: 0.005}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.iv.contended(2); got != tc.want {
				t.Errorf("contended = %v, want %v", got, tc.want)
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
