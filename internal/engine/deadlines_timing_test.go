//go:build timing

package engine

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// lateness runs n deadlines spread over span in a process that is
// otherwise idle and returns how late each ran, sorted.
func lateness(t *testing.T, precise bool, n int, span time.Duration) []time.Duration {
	t.Helper()
	ds, stop := startDeadlines(precise)
	defer stop()
	rng := rand.New(rand.NewPCG(1, 2))
	var mu sync.Mutex
	var wg sync.WaitGroup
	late := make([]time.Duration, 0, n)
	t0 := time.Now()
	for range n {
		at := t0.Add(10*time.Millisecond + time.Duration(rng.Int64N(int64(span))))
		wg.Add(1)
		ds.add(at, func() {
			d := time.Since(at)
			mu.Lock()
			late = append(late, d)
			mu.Unlock()
			wg.Done()
		})
	}
	wg.Wait()
	slices.Sort(late)
	return late
}

func pct(s []time.Duration, p float64) time.Duration { return s[min(int(p*float64(len(s))), len(s)-1)] }

// TestTimingDeadlines: deadlines spread over 2 s (500 a second), each due
// at a moment that is no whole millisecond, in an idle process. The
// runtime timer alone wakes an idle process on epoll_wait's whole
// milliseconds, so its p50 alone is about half a millisecond; the timerfd
// wake must beat it well at the p50, and keep the p99 under 5 ms (a race build
// on a shared CI machine; the aim of issue 28, p99 under 1 ms, is a
// benchmark's figure, docs/performance.md, not this gate's: one of two
// runs at load 4 read 1.26 ms). The figures are logged.
//
// A stall of the whole machine makes every deadline due in it late at
// once: one CI run read a timerfd p99 of 105 ms and a max of 137 ms while
// the runtime timer's run just before it read a max of 3.7 ms. The runtime
// timer stays armed beside the timerfd (deadlines.go), so no lost wake of
// ours is ever more than a millisecond or so late; a p99 over 100 ms is
// the machine's. A stall moves the p99, not the p50. So the p99 bound is
// measured up to three times and met by any attempt, while the p50 bound
// (the timerfd's whole point: without it both runs are the runtime
// timer's) must hold in every attempt made. That bound is under half the
// runtime timer's p50 (0.09–0.16 ms against 0.6–0.8 ms, quiet or at load
// 17, docs/performance.md), so a timerfd that does nothing fails it, not
// one time in two as "below" would.
func TestTimingDeadlines(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the timerfd wake is Linux's")
	}
	const n, span, attempts = 1000, 2 * time.Second, 3
	var p99 time.Duration
	for a := 1; a <= attempts; a++ {
		coarse := lateness(t, false, n, span)
		fine := lateness(t, true, n, span)
		t.Logf("attempt %d: runtime timer alone: p50 %v, p99 %v, max %v", a, pct(coarse, 0.5), pct(coarse, 0.99), coarse[len(coarse)-1])
		t.Logf("attempt %d: with the timerfd:    p50 %v, p99 %v, max %v", a, pct(fine, 0.5), pct(fine, 0.99), fine[len(fine)-1])
		if pct(fine, 0.5) >= pct(coarse, 0.5)/2 {
			t.Fatalf("attempt %d: with the timerfd, lateness p50 %v, not under half the runtime timer's %v", a, pct(fine, 0.5), pct(coarse, 0.5))
		}
		if p99 = pct(fine, 0.99); p99 < 5*time.Millisecond {
			return
		}
	}
	t.Errorf("with the timerfd, lateness p99 %v in the last of %d attempts (each over 5 ms), want < 5ms", p99, attempts)
}
