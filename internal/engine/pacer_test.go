package engine

import (
	"context"
	"math"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

func TestConstantIntended(t *testing.T) {
	for _, tt := range []struct {
		name string
		r    vegeta.Rate
		n    uint64
		want time.Duration
	}{
		{"first hit at once", perSec(100), 0, 0},
		{"100/s", perSec(100), 1, 10 * time.Millisecond},
		{"100/s, 200th", perSec(100), 200, 2 * time.Second},
		{"3/s is exact at whole seconds", perSec(3), 3, time.Second},
		{"3/s between", perSec(3), 1, 333333333 * time.Nanosecond},
		{"5 per 250ms", vegeta.Rate{Freq: 5, Per: 250 * time.Millisecond}, 7, 350 * time.Millisecond},
		{"1 per minute", vegeta.Rate{Freq: 1, Per: time.Minute}, 2, 2 * time.Minute},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := (constant{tt.r}).intended(tt.n); got != tt.want {
				t.Errorf("intended(%d) = %s, want %s", tt.n, got, tt.want)
			}
		})
	}
}

// stagesOf is newStages from a rate in calls per second.
func stagesOf(from float64, steps ...Stage) stages { return newStages(from, steps) }

func stage(to int, over time.Duration) Stage { return Stage{To: perSec(to), Over: over} }

// rateAt is a pacer's rate, in calls per second, at a time into the load.
type rateAt struct {
	at   time.Duration
	want float64
}

// pacerCase is one pacer of TestPacers and what it must do.
type pacerCase struct {
	name  string
	p     pacer
	hits  uint64 // the hits that are due (for stages that end at 0: all of them)
	ends  bool   // the pacer stops after hits
	rates []rateAt
	// want pins some intended times exactly (to the µs).
	want map[uint64]time.Duration
}

// pacerCases are the cases of TestPacers: a constant rate and stages.
var pacerCases = []pacerCase{
	{name: "constant 100/1s", p: constant{perSec(100)}, hits: 1000,
		rates: []rateAt{{0, 100}, {5 * time.Second, 100}, {time.Hour, 100}},
		want:  map[uint64]time.Duration{0: 0, 1: 10 * time.Millisecond, 999: 9990 * time.Millisecond}},
	{name: "ramp 0 to 100/s over 10s, then held", p: stagesOf(0, stage(100, 10*time.Second)), hits: 1500,
		rates: []rateAt{{0, 0}, {time.Second, 10}, {5 * time.Second, 50}, {10 * time.Second, 100}, {20 * time.Second, 100}},
		// n hits are due at t = sqrt(2n/10): hit 1 at 0.447 s, hit 500 at 10 s; then 100/s.
		want: map[uint64]time.Duration{0: 0, 5: time.Second, 20: 2 * time.Second, 500: 10 * time.Second, 600: 11 * time.Second}},
	{name: "down-ramp 100/s to 0 over 10s", p: stagesOf(100, stage(0, 10*time.Second)), hits: 500, ends: true,
		rates: []rateAt{{0, 100}, {5 * time.Second, 50}, {10 * time.Second, 0}, {time.Minute, 0}},
		// 100t - 5t² hits by t: 95 at 1 s, 375 at 5 s.
		want: map[uint64]time.Duration{0: 0, 95: time.Second, 375: 5 * time.Second}},
	{name: "several stages", p: stagesOf(10, stage(50, 2*time.Second), stage(50, time.Second), stage(20, 3*time.Second), stage(0, time.Second)),
		// 60 + 50 + 105 + 10 hits.
		hits: 225, ends: true,
		rates: []rateAt{{0, 10}, {time.Second, 30}, {2 * time.Second, 50}, {2500 * time.Millisecond, 50}, {3 * time.Second, 50},
			{4 * time.Second, 40}, {6 * time.Second, 20}, {6500 * time.Millisecond, 10}, {7 * time.Second, 0}},
		want: map[uint64]time.Duration{0: 0, 60: 2 * time.Second, 85: 2500 * time.Millisecond, 110: 3 * time.Second, 215: 6 * time.Second}},
	{name: "a quiet stage first", p: stagesOf(0, stage(0, 2*time.Second), stage(100, 10*time.Second)), hits: 700,
		rates: []rateAt{{0, 0}, {time.Second, 0}, {7 * time.Second, 50}, {12 * time.Second, 100}},
		want:  map[uint64]time.Duration{0: 2 * time.Second, 5: 3 * time.Second, 500: 12 * time.Second}},
	{name: "held from a starting rate", p: stagesOf(20, stage(20, time.Second)), hits: 100,
		rates: []rateAt{{0, 20}, {500 * time.Millisecond, 20}, {time.Minute, 20}},
		want:  map[uint64]time.Duration{1: 50 * time.Millisecond, 20: time.Second, 40: 2 * time.Second}},
}

// TestPacers checks each pacer's intended times, rates and Pace against
// each other and against pinned values.
func TestPacers(t *testing.T) {
	for _, tt := range pacerCases {
		t.Run(tt.name, func(t *testing.T) {
			for n, want := range tt.want {
				if got := tt.p.intended(n); (got - want).Abs() > time.Microsecond {
					t.Errorf("intended(%d) = %s, want %s", n, got, want)
				}
			}
			for _, r := range tt.rates {
				if got := tt.p.Rate(r.at); math.Abs(got-r.want) > 1e-9 {
					t.Errorf("Rate(%s) = %g, want %g", r.at, got, r.want)
				}
			}
			prev := time.Duration(-1)
			for n := uint64(0); n < tt.hits; n++ {
				at := tt.p.intended(n)
				if at <= prev {
					t.Fatalf("intended(%d) = %s, not after intended(%d) = %s", n, at, n-1, prev)
				}
				prev = at
				// hits(intended(n)) ≈ n: the pacer's two views agree.
				if s, ok := tt.p.(stages); ok {
					if h := s.hits(at); math.Abs(h-float64(n)) > 1e-3 {
						t.Fatalf("hits(intended(%d) = %s) = %g", n, at, h)
					}
				}
				// Pace sends hit n at intended(n): not sooner, not later.
				if at >= time.Millisecond {
					if wait, stop := tt.p.Pace(at-time.Millisecond, n); stop || (wait-time.Millisecond).Abs() > time.Microsecond {
						t.Fatalf("Pace(%s, %d) = %s, %v; want to wait 1ms for intended %s", at-time.Millisecond, n, wait, stop, at)
					}
				}
				for _, late := range []time.Duration{0, time.Microsecond, time.Second} {
					if wait, stop := tt.p.Pace(at+late, n); wait != 0 || stop {
						t.Fatalf("Pace(%s, %d) = %s, %v; want 0 (due at %s)", at+late, n, wait, stop, at)
					}
				}
			}
			wait, stop := tt.p.Pace(prev, tt.hits)
			if stop != tt.ends {
				t.Errorf("after %d hits: Pace stops %v, want %v (wait %s)", tt.hits, stop, tt.ends, wait)
			}
			if tt.ends && tt.p.intended(tt.hits) != math.MaxInt64 {
				t.Errorf("intended(%d) = %s after the rate reached 0", tt.hits, tt.p.intended(tt.hits))
			}
		})
	}
}

// TestPaced: the loop that paces the load and the background faults makes
// hit 0 at once and hit n at its intended time, and none at or after the
// end (vegeta's own ConstantPacer would wait one interval first).
func TestPaced(t *testing.T) {
	t.Parallel()
	p := constant{vegeta.ConstantPacer{Freq: 1000, Per: time.Second}}
	var ats []time.Duration
	paced(context.Background(), p, time.Now(), 20*time.Millisecond, func(n uint64, at time.Duration) {
		if n != uint64(len(ats)) {
			t.Errorf("hit %d after %d hits", n, len(ats))
		}
		ats = append(ats, at)
	})
	if len(ats) != 20 {
		t.Fatalf("%d hits in 20ms at 1000/s, want 20", len(ats))
	}
	for i, at := range ats {
		if at != time.Duration(i)*time.Millisecond {
			t.Errorf("hit %d intended at %s, want %dms", i, at, i)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	paced(ctx, p, time.Now(), time.Hour, func(uint64, time.Duration) { t.Error("a hit after the context ended") })
}
