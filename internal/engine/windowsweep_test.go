package engine

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/results"
)

// TestSweepWaitsForStartingCalls: a quiet window's sweep ends only when no
// call in flight is without its cut and none is starting (the loop's condition; the
// counting itself is TestStartingBackToZero's). A tick handed to a worker just
// before the pause is not in flight yet; its call is cut as it starts
// (cancelIfPaused), and the window's grace must run from that cut, so the
// sweep waits for it and counts it. Found by the TypeScript SDK's
// agreement run: the window began 1 ms after a tick, cut nothing, waited
// no grace, and measured the late-cut call's own 200 ms of work inside its
// grace as leftover (a false violation).
func TestSweepWaitsForStartingCalls(t *testing.T) {
	for _, tc := range []struct {
		name      string
		startsIn  time.Duration // when the starting call is in flight and cut; 0: none starting
		wantAfter time.Duration
		wantCut   int
	}{
		{"nothing in flight, nothing starting", 0, 0, 0},
		{"a call starting: wait for its cut", 50 * time.Millisecond, 60 * time.Millisecond, 1},
		{"a call that never starts: 2 s at most", 10 * time.Second, 2 * time.Second, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := &runner{}
				if tc.startsIn > 0 {
					r.starting.Add(1)
					go func() {
						time.Sleep(tc.startsIn)
						// what startCall and cancelIfPaused do as it starts
						r.win.pausedCuts.Add(1)
						r.starting.Add(-1)
					}()
				}
				from := time.Now()
				cut, ok := r.sweepForWindow(context.Background(), from)
				took := time.Since(from)
				if !ok || took != tc.wantAfter || cut != tc.wantCut {
					t.Errorf("sweepForWindow = %d cut, %v after %v; want %d cut after %v", cut, ok, took, tc.wantCut, tc.wantAfter)
				}
				time.Sleep(tc.startsIn) // let the starting call's goroutine end in the bubble
			})
		})
	}
}

// TestSweepLeavesCutCalls: the sweep does not wait for a call in flight
// whose cut is out (a 2025 HTTP call stays in flight for what the server
// still sends it: mcp-go's windows read their grace from the leaked
// calls' end, and saw none of their work); it waits for a stop whose
// cancel is still going out, and for a retry round still being sent after
// a stop cancelled the round that had ended.
func TestSweepLeavesCutCalls(t *testing.T) {
	for _, tc := range []struct {
		name      string
		set       func(cs *callState) // cs is stopped; set marks how far
		settle    func(cs *callState) // 50 ms later; nil: never
		wantAfter time.Duration
	}{
		{"its cut out: not waited for", func(cs *callState) { cs.cutOut.Store(true) }, nil, 0},
		{"its cancel going out", func(*callState) {}, func(cs *callState) { cs.cutOut.Store(true) }, 60 * time.Millisecond},
		{"a retry round being sent", func(cs *callState) { cs.cutOut.Store(true); cs.sending.Store(true) },
			func(cs *callState) { cs.sending.Store(false) }, 60 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := &runner{}
				cs := &callState{r: r}
				cs.stopped.Store(true) // the sweep's stopAll passes it by
				tc.set(cs)
				r.inflight.add(cs)
				if tc.settle != nil {
					go func() {
						time.Sleep(50 * time.Millisecond)
						tc.settle(cs)
					}()
				}
				from := time.Now()
				_, ok := r.sweepForWindow(context.Background(), from)
				if took := time.Since(from); !ok || took != tc.wantAfter {
					t.Errorf("sweepForWindow ended after %v (%v); want after %v", took, ok, tc.wantAfter)
				}
				time.Sleep(50 * time.Millisecond)
			})
		})
	}
}

// TestStartingBackToZero: every tick counted as starting is counted off
// when its call is in flight or dropped, in an open load that drops ticks
// and in a closed load; a count left over would make every later quiet
// window wait its 2 s for a call that never starts. (A tick that finds no
// client, a stdio server that did not start, is counted off in firstCall;
// no run here reaches it.)
func TestStartingBackToZero(t *testing.T) {
	t.Parallel()
	tg := newTarget(t, targetserver.Config{})
	for _, tc := range []struct {
		name string
		load Load
	}{
		{"open load with dropped ticks", Load{Rate: perSec(50), Duration: 500 * time.Millisecond, MaxInFlight: 2}},
		{"closed load", Load{Concurrency: 3, Duration: 300 * time.Millisecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			left := int64(-1)
			opts := Options{Version: "test", Sink: func(*results.Record) {}, workersDone: func(n int64) { left = n }}
			if _, err := Run(context.Background(), httpPlan(tg.URL, tc.load, slowTask(2, 20)), opts); err != nil {
				t.Fatalf("Run: %v", err)
			}
			if left != 0 {
				t.Errorf("ticks still counted as starting when the workers ended: %d, want 0", left)
			}
		})
	}
}

// TestStopCutOut: a stop marks the call's cut out once its cancel has
// gone out, and a call abandoned between rounds at once; a followed task
// abandoned so is not out until its tasks/cancel (cancelTask), which the
// sweep waits for: a window that measured before it would take the task's
// own work for leftover.
func TestStopCutOut(t *testing.T) {
	for _, tc := range []struct {
		name     string
		thinking bool
		task     string
		want     bool
	}{
		{"a request: once its cancel is out", false, "", true},
		{"abandoned between rounds", true, "", true},
		{"a followed task: not until its tasks/cancel", true, "task-1", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := &callState{r: &runner{}, call: &client.Call{}}
			if tc.thinking {
				cs.thinking = make(chan struct{})
			}
			cs.task.id = tc.task
			acted := false
			if err := cs.stopWith(results.Cancelled, results.StopQuietWindow, time.Time{}, func(*client.Call) error {
				acted = true
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if got := cs.cutOut.Load(); got != tc.want || !cs.stopped.Load() || acted == tc.thinking {
				t.Errorf("cutOut %v, stopped %v, acted %v; want cutOut %v, stopped, acted %v", got, cs.stopped.Load(), acted, tc.want, !tc.thinking)
			}
		})
	}
}
