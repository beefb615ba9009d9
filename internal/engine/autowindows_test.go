package engine

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/faults"
)

// kindOnly is a fault that is only a kind, for autoWindows.
type kindOnly string

func (k kindOnly) Kind() string { return string(k) }
func (kindOnly) Draw(*rand.Rand, faults.Info) (faults.When, bool) {
	return faults.When{}, false
}

func TestAutoWindows(t *testing.T) {
	plan := func(d time.Duration, kinds ...string) Plan {
		p := Plan{Load: Load{Duration: d}}
		for _, k := range kinds {
			p.Faults = append(p.Faults, kindOnly(k))
		}
		return p
	}
	withWindows := plan(10*time.Second, "cancel")
	withWindows.Orphans.Windows = &Windows{Every: time.Second, For: time.Second}
	shared := plan(10*time.Second, "cancel")
	shared.Shard.Count, shared.Target.HTTP = 2, &client.HTTPConfig{}
	for _, tc := range []struct {
		name                    string
		plan                    Plan
		counting, logs, process bool
		want                    *Windows
	}{
		{"process probe only, cancels", plan(20*time.Second, "cancel"), false, false, true, &Windows{Every: 3 * time.Second, For: time.Second, AfterCut: true}},
		{"disconnects only", plan(20*time.Second, "disconnect"), false, false, true, &Windows{Every: 3 * time.Second, For: time.Second, AfterCut: true}},
		{"short load: every half of it", plan(3*time.Second, "cancel"), false, false, true, &Windows{Every: 1500 * time.Millisecond, For: time.Second, AfterCut: true}},
		{"load too short", plan(1900*time.Millisecond, "cancel"), false, false, true, nil},
		{"shortest load", plan(2*time.Second, "cancel"), false, false, true, &Windows{Every: time.Second, For: time.Second, AfterCut: true}},
		{"nothing cut", plan(20*time.Second, "stall_read"), false, false, true, nil},
		{"no process probe", plan(20*time.Second, "cancel"), false, false, false, nil},
		{"a counting probe", plan(20*time.Second, "cancel"), true, false, true, nil},
		{"a log probe", plan(20*time.Second, "cancel"), false, true, true, nil},
		{"windows asked for", withWindows, false, false, true, nil},
		{"a shared server", shared, false, false, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := autoWindows(tc.plan, tc.counting, tc.logs, tc.process)
			if (got == nil) != (tc.want == nil) || (got != nil && *got != *tc.want) {
				t.Errorf("autoWindows = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestWithoutTicks(t *testing.T) {
	for _, tc := range []struct {
		name     string
		sd, want float64
	}{
		{"ticks alone", 0.034, 0},
		{"no noise", 0, 0},
		{"real noise stays", 0.0634, 0.0535},
		{"large noise almost whole", 0.5, 0.4988},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := withoutTicks(tc.sd, 120*time.Millisecond); math.Abs(got-tc.want) > 0.001 {
				t.Errorf("withoutTicks(%v) = %.4f, want %.4f", tc.sd, got, tc.want)
			}
		})
	}
}

// TestAwaitCut: a window that falls due waits for the next fault cut (one
// from before it fell due does not count), at most its limit, and not past
// the load's end.
func TestAwaitCut(t *testing.T) {
	for _, tc := range []struct {
		name      string
		staleCut  bool          // a cut signalled before the wait began
		cutAfter  time.Duration // a cut during the wait (0: none)
		limit     time.Duration
		loadLeft  time.Duration
		want, cut bool
		wantAfter time.Duration
	}{
		{"a cut comes", false, 400 * time.Millisecond, 3 * time.Second, 10 * time.Second, true, true, 400 * time.Millisecond},
		{"an old cut is not waited on", true, 700 * time.Millisecond, 3 * time.Second, 10 * time.Second, true, true, 700 * time.Millisecond},
		{"no cut: the limit", false, 0, 3 * time.Second, 10 * time.Second, true, false, 3 * time.Second},
		{"no cut: the load ends first", false, 0, 3 * time.Second, time.Second, false, false, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := &runner{cuts: make(chan struct{}, 1), began: time.Now(), plan: Plan{Load: Load{Duration: tc.loadLeft}}}
				if tc.staleCut {
					r.cutSignal()
				}
				if tc.cutAfter > 0 {
					time.AfterFunc(tc.cutAfter, r.cutSignal)
				}
				start := time.Now()
				got, cut := r.awaitCut(t.Context(), make(chan struct{}), tc.limit)
				if got != tc.want || cut != tc.cut || time.Since(start) != tc.wantAfter {
					t.Errorf("awaitCut = %v, %v after %v, want %v, %v after %v", got, cut, time.Since(start), tc.want, tc.cut, tc.wantAfter)
				}
			})
		})
	}
}

// TestLastWindowDue: a load whose automatic windows took none ends with
// one while calls are in flight or starting; not when a window was
// taken, nothing is in flight, the windows were asked for, the load has
// not ended or the run was interrupted.
func TestLastWindowDue(t *testing.T) {
	auto := &Windows{Every: 1500 * time.Millisecond, For: time.Second, AfterCut: true}
	asked := &Windows{Every: 1500 * time.Millisecond, For: time.Second}
	for _, tc := range []struct {
		name        string
		windows     *Windows
		taken       int
		inflight    int
		starting    int64
		loadLeft    time.Duration
		interrupted bool
		cutSince    bool // a fault cut since the last window (its signal waiting)
		want        bool
	}{
		{"none taken, calls in flight", auto, 0, 2, 0, 0, false, false, true},
		{"none taken, a call starting", auto, 0, 0, 1, 0, false, false, true},
		{"a window taken", auto, 1, 2, 0, 0, false, false, false},
		{"nothing in flight", auto, 0, 0, 0, 0, false, false, false},
		{"windows asked for", asked, 0, 2, 0, 0, false, false, false},
		{"no windows", nil, 0, 2, 0, 0, false, false, false},
		{"before the load's end", auto, 0, 2, 0, time.Second, false, false, false},
		{"interrupted", auto, 0, 2, 0, 0, true, false, false},
		{"a window taken, a cut since", auto, 1, 0, 0, 0, false, true, true},
		{"a window taken, a cut since, interrupted", auto, 1, 2, 0, 0, true, true, false},
		{"windows asked for, a cut since", asked, 1, 2, 0, 0, false, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Plan{Load: Load{Duration: 3 * time.Second}}
			p.Orphans.Windows = tc.windows
			r := &runner{plan: p, began: time.Now().Add(-3*time.Second + tc.loadLeft), cuts: make(chan struct{}, 1)}
			if tc.cutSince {
				r.cutSignal()
			}
			for range tc.inflight {
				r.inflight.add(&callState{})
			}
			r.starting.Store(tc.starting)
			pr := &probeRun{r: r}
			pr.windows.Count = tc.taken
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			if tc.interrupted {
				cancel()
			}
			if got := r.lastWindowDue(ctx, pr); got != tc.want {
				t.Errorf("lastWindowDue = %v, want %v", got, tc.want)
			}
		})
	}
}
