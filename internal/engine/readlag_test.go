package engine

import (
	"testing"
	"testing/synctest"
	"time"
)

func TestReadLagWithin(t *testing.T) {
	t0 := time.Date(2026, 7, 28, 0, 0, 0, 0, time.UTC)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	var l readLag
	l.note(ms(100), ms(140)) // 40 ms
	l.note(ms(300), ms(320)) // 20 ms
	for _, tc := range []struct {
		name string
		a, b time.Time
		want time.Duration
	}{
		{"both stalls inside", ms(0), ms(400), 60 * time.Millisecond},
		{"none inside", ms(150), ms(290), 0},
		{"a stall cut at the start", ms(120), ms(200), 20 * time.Millisecond},
		{"a stall cut at the end", ms(200), ms(310), 10 * time.Millisecond},
		{"an empty interval", ms(400), ms(100), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := l.within(tc.a, tc.b); got != tc.want {
				t.Errorf("within = %v, want %v", got, tc.want)
			}
		})
	}
	var none *readLag
	if got := none.within(ms(0), ms(1000)); got != 0 {
		t.Errorf("a nil monitor's stalls = %v, want 0", got)
	}
}

func TestReadLagBounded(t *testing.T) {
	var l readLag
	t0 := time.Unix(0, 0)
	for i := range maxLagStalls + 10 {
		at := t0.Add(time.Duration(i) * time.Second)
		l.note(at, at.Add(10*time.Millisecond))
	}
	if len(l.stalls) != maxLagStalls || !l.stalls[0].from.Equal(t0.Add(10*time.Second)) {
		t.Errorf("%d stalls kept, the first from %v; want %d, the oldest dropped", len(l.stalls), l.stalls[0].from, maxLagStalls)
	}
}

// TestReadLagQuietClock: on a clock that never runs late (synctest), the
// monitor notes no stall of its own, calls its periodic work once each
// time it wakes, and stops when asked; a run of that work that takes 50 ms
// is time the monitor could not look, so it counts as a stall past its
// tick (40 ms), and the next wake-up is due a tick after the slow one.
func TestReadLagQuietClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var l readLag
		var calls int
		stop := l.start(func(time.Time) {
			calls++
			if calls == 10 {
				time.Sleep(50 * time.Millisecond) // slow work: the monitor is blind meanwhile
			}
		})
		from := time.Now()
		time.Sleep(time.Second + lagTick/2)
		stop()
		if got, want := l.within(from, time.Now()), 50*time.Millisecond-lagTick; got != want {
			t.Errorf("stalls on a fake clock = %v, want %v (the slow run past its tick)", got, want)
		}
		if want := int((time.Second-50*time.Millisecond)/lagTick) + 1; calls != want {
			t.Errorf("periodic work ran %d times in 1s, want %d (every %v, one run taking 50ms)", calls, want, lagTick)
		}
	})
}

// TestBeyondGraceLessOurStalls: a message read past the grace after a
// cancel, but only because this process stalled in between, proves no
// work after the cancel.
func TestBeyondGraceLessOurStalls(t *testing.T) {
	t0 := time.Date(2026, 7, 28, 0, 0, 0, 0, time.UTC)
	ms := time.Millisecond
	for _, tc := range []struct {
		name      string
		stall     time.Duration // a stall from t0+100ms
		at        time.Duration
		violation bool
	}{
		{"no stall: by time", 0, 350 * ms, true},
		{"a 43 ms stall covers 43 ms past the grace", 43 * ms, 343 * ms, false},
		{"a stall shorter than the lateness", 20 * ms, 343 * ms, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &runner{plan: Plan{Progress: ProgressRules{Grace: 300 * ms}}}
			if tc.stall > 0 {
				r.lag.note(t0.Add(100*ms), t0.Add(100*ms+tc.stall))
			}
			cs := &callState{r: r, cancelAt: t0, cancelSent: t0}
			if got := cs.beyondGrace(t0.Add(tc.at)); got != tc.violation {
				t.Errorf("beyondGrace(+%v) = %v, want %v", tc.at, got, tc.violation)
			}
		})
	}
}
