package engine

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// firings records when each named callback ran (on the fake clock).
type firings struct {
	mu sync.Mutex
	at map[string]time.Duration
}

func (f *firings) fn(name string, t0 time.Time) func() {
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		if _, dup := f.at[name]; dup {
			panic("deadline " + name + " fired twice")
		}
		f.at[name] = time.Since(t0)
	}
}

// TestDeadlines: callbacks run at their due time, in any order of adding;
// a stopped one never runs; a reset one runs at its new time, also after
// it fired; Stop and Reset report whether it was waiting.
func TestDeadlines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ds, stop := startDeadlines(false)
		defer stop()
		f := &firings{at: map[string]time.Duration{}}
		t0 := time.Now()
		add := func(name string, d time.Duration) *deadline { return ds.add(t0.Add(d), f.fn(name, t0)) }
		add("c", 300*time.Millisecond)
		add("a", 100*time.Millisecond)
		b := add("b", 200*time.Millisecond)
		gone := add("stopped", 150*time.Millisecond)
		moved := add("moved", 50*time.Millisecond)
		add("past", -time.Second)
		if !gone.Stop() {
			t.Error("Stop of a waiting deadline returned false")
		}
		if gone.Stop() {
			t.Error("second Stop returned true")
		}
		if !moved.Reset(400 * time.Millisecond) {
			t.Error("Reset of a waiting deadline returned false")
		}
		time.Sleep(250 * time.Millisecond)
		synctest.Wait()
		if b.Stop() {
			t.Error("Stop after the deadline fired returned true")
		}
		time.Sleep(time.Second)
		synctest.Wait()
		want := map[string]time.Duration{"past": 0, "a": 100 * time.Millisecond, "b": 200 * time.Millisecond,
			"c": 300 * time.Millisecond, "moved": 400 * time.Millisecond}
		f.mu.Lock()
		defer f.mu.Unlock()
		if len(f.at) != len(want) {
			t.Errorf("fired %v, want %v", f.at, want)
		}
		for name, at := range want {
			if got, ok := f.at[name]; !ok || got != at {
				t.Errorf("%s fired at %v (fired: %v), want %v", name, got, ok, at)
			}
		}
	})
}

// TestDeadlineResetAfterFiring: a deadline reset after it fired runs
// again, as a time.Timer would.
func TestDeadlineResetAfterFiring(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ds, stop := startDeadlines(false)
		defer stop()
		var mu sync.Mutex
		var times []time.Duration
		t0 := time.Now()
		d := ds.add(t0.Add(10*time.Millisecond), func() {
			mu.Lock()
			defer mu.Unlock()
			times = append(times, time.Since(t0))
		})
		time.Sleep(20 * time.Millisecond)
		synctest.Wait()
		if d.Reset(30 * time.Millisecond) {
			t.Error("Reset after firing returned true")
		}
		time.Sleep(time.Second)
		synctest.Wait()
		mu.Lock()
		defer mu.Unlock()
		if want := []time.Duration{10 * time.Millisecond, 50 * time.Millisecond}; len(times) != 2 || times[0] != want[0] || times[1] != want[1] {
			t.Errorf("fired at %v, want %v", times, want)
		}
	})
}

// TestDeadlinesStopEnds: stopping the structure ends its goroutine; what
// was still waiting never runs.
func TestDeadlinesStopEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ds, stop := startDeadlines(false)
		ran := make(chan struct{}, 1)
		ds.add(time.Now().Add(time.Hour), func() { ran <- struct{}{} })
		stop()
		time.Sleep(2 * time.Hour)
		synctest.Wait()
		select {
		case <-ran:
			t.Error("a deadline ran after the structure was stopped")
		default:
		}
	})
}

// TestDeadlinesPrecise: with the precise wake (a timerfd on Linux), every
// deadline still runs, once, not before its time; real time, so only
// generous bounds.
func TestDeadlinesPrecise(t *testing.T) {
	ds, stop := startDeadlines(true)
	defer stop()
	const n = 200
	var wg sync.WaitGroup
	wg.Add(n)
	early := make(chan time.Duration, n)
	t0 := time.Now()
	for i := range n {
		at := t0.Add(time.Duration(i%20) * time.Millisecond)
		ds.add(at, func() {
			if d := time.Until(at); d > 0 {
				early <- d
			}
			wg.Done()
		})
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("deadlines had not all fired after a minute")
	}
	close(early)
	for d := range early {
		t.Errorf("a deadline fired %v early", d)
	}
}

// TestDeadlinesLaterNeedNoWake: deadlines added after the moment the
// driver sleeps until, and stopped before it, as a call's timeouts are, do
// not wake the driver, even when the heap was empty (the deadline it slept
// for was stopped); one added before that moment does, and fires on time.
func TestDeadlinesLaterNeedNoWake(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ds, stop := startDeadlines(false)
		defer stop()
		t0 := time.Now()
		f := &firings{at: map[string]time.Duration{}}
		never := func() { t.Error("a stopped deadline fired") }
		first := ds.add(t0.Add(5*time.Second), never)
		synctest.Wait()
		first.Stop() // the heap is empty; the driver still sleeps until 5s
		before := ds.wakes.Load()
		for i := range 1000 {
			at := t0.Add(5*time.Second + time.Duration(i)*time.Millisecond)
			idle, cp := ds.add(at, never), ds.add(at.Add(5*time.Second), never)
			synctest.Wait()
			idle.Stop()
			cp.Stop()
		}
		if woke := ds.wakes.Load() - before; woke != 0 {
			t.Errorf("the driver woke %d times for 2,000 later deadlines, want 0", woke)
		}
		ds.add(t0.Add(time.Second), f.fn("sooner", t0))
		later := ds.add(t0.Add(20*time.Second), f.fn("later", t0))
		time.Sleep(30 * time.Second)
		synctest.Wait()
		later.Stop()
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.at["sooner"] != time.Second || f.at["later"] != 20*time.Second || len(f.at) != 2 {
			t.Errorf("fired %v, want sooner at 1s and later at 20s", f.at)
		}
	})
}
