package engine

import (
	"context"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// TestTickSleeper: the load's pacer sleeper (a timerfd on Linux) never
// wakes before its time, paces every hit, and ends a long sleep when its
// context does; real time, so only generous bounds.
func TestTickSleeper(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	sl := newTickSleeper(ctx)
	for _, d := range []time.Duration{0, 100 * time.Microsecond, 3 * time.Millisecond, 3 * time.Millisecond} {
		start := time.Now()
		if !sl.sleep(ctx, d) {
			t.Fatalf("sleep(%v) ended early with its context alive", d)
		}
		if got := time.Since(start); got < d {
			t.Errorf("sleep(%v) woke after %v, before its time", d, got)
		}
	}
	ended := make(chan bool, 1)
	go func() { ended <- sl.sleep(ctx, time.Hour) }()
	time.Sleep(10 * time.Millisecond)
	cancel()
	select {
	case ok := <-ended:
		if ok {
			t.Error("an hour's sleep cut by its context reported that it slept")
		}
	case <-time.After(time.Minute):
		t.Fatal("an hour's sleep did not end a minute after its context did")
	}
	if sl.sleep(ctx, time.Hour) {
		t.Error("a sleep after the context ended reported that it slept")
	}
	sl.stop()

	// Paced on it: every hit, none before its time.
	p := constant{vegeta.ConstantPacer{Freq: 1000, Per: time.Second}}
	began := time.Now()
	n := 0
	pacedWith(context.Background(), newTickSleeper(context.Background()), p, began, 30*time.Millisecond, 0, 1, func(i uint64, at time.Duration) {
		if early := at - time.Since(began); early > 0 {
			t.Errorf("hit %d sent %v before its time", i, early)
		}
		n++
	})
	if n != 30 {
		t.Errorf("%d hits in 30ms at 1000/s, want 30", n)
	}
}
