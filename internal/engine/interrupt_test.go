package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/results"
)

// TestInterruptAfterLoad: an interrupt after the load — during the
// graceful stop's drain, or while the orphan probes wait for leaked work
// to drain — ends that phase at once: calls in flight are cancelled as
// interrupted, the probes get one short final read (and say so), and the
// run reports itself interrupted. Unbounded, each phase lasts 60 s.
func TestInterruptAfterLoad(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		phase string
		leak  float64
	}{
		// 60 s calls, a 60 s graceful stop: the drain would wait for them.
		{name: "during the drain", phase: PhaseDrain},
		// Calls that ignore the cancel keep the target's gauge up: the
		// probes would wait drain_max (60 s) for it to drain.
		{name: "during the probes", phase: PhaseProbes, leak: 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tg := newTarget(t, targetserver.Config{LeakOnCancel: tt.leak})
			load := Load{Rate: perSec(4), Duration: time.Second, GracefulStop: 60 * time.Second}
			if tt.phase == PhaseProbes {
				load.GracefulStop = 100 * time.Millisecond
			}
			plan := httpPlan(tg.URL, load, slowTask(600, 100))
			plan.Orphans = Orphans{Grace: 100 * time.Millisecond, DrainMax: 60 * time.Second,
				Probes: []ProbeSpec{{Name: "gauge", Metric: &MetricProbe{URL: tg.MetricsURL, Name: "mcpchaos_target_inflight"}}}}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var interruptedAt time.Time
			var recs []*results.Record
			// Tick runs on the collector about once a second: it
			// interrupts as soon as it sees the phase.
			tick := func(l Live) {
				if l.Phase == tt.phase && interruptedAt.IsZero() {
					interruptedAt = time.Now()
					cancel()
				}
			}
			info, err := Run(ctx, plan, Options{Sink: func(r *results.Record) { recs = append(recs, r) }, Tick: tick, Version: "test"})
			if err != nil {
				t.Fatal(err)
			}
			if interruptedAt.IsZero() {
				t.Fatalf("the run ended without a tick in phase %q", tt.phase)
			}
			took := time.Since(interruptedAt)
			t.Logf("ended %s after the interrupt", took.Round(time.Millisecond))
			// Unbounded, the phase lasts 60 s: the bound is short of that,
			// not how soon a busy machine ends the run.
			if took > 45*time.Second {
				t.Errorf("the run ended %s after the interrupt in phase %s; want promptly (60 s unbounded)", took, tt.phase)
			}
			if !info.Interrupted {
				t.Error("Info.Interrupted = false after an interrupt after the load")
			}
			if tt.phase == PhaseDrain {
				for _, r := range recs {
					if r.Outcome != results.Cancelled || r.CancelReason != results.StopInterrupted {
						t.Errorf("seq %d: outcome %q, reason %q; want cancelled, interrupted", r.Seq, r.Outcome, r.CancelReason)
					}
				}
			}
			said := strings.Join(info.Orphans.ProbeErrors, "\n")
			if !strings.Contains(said, "interrupted after the load: the probes were read once") {
				t.Errorf("the probe errors do not say the probes were cut short: %q", said)
			}
		})
	}
}

// TestStopAllSkipsBusyCalls: the drain's sweep does not wait for a call
// whose lock is held (on a busy machine, thousands of call goroutines hold
// theirs and wait to be scheduled): it returns, and the next sweep takes
// that call.
func TestStopAllSkipsBusyCalls(t *testing.T) {
	t.Parallel()
	r := &runner{}
	busy, free := &callState{r: r}, &callState{r: r}
	r.inflight.add(busy)
	r.inflight.add(free)
	busy.mu.Lock()
	done := make(chan struct{})
	go func() {
		r.stopAll(results.StopInterrupted)
		close(done)
	}()
	testutil.Receive(t, "the sweep to return while one call's lock is held", done)
	busy.mu.Unlock()
	if !busy.mu.TryLock() {
		t.Fatal("the sweep left the busy call locked")
	}
	busy.mu.Unlock()
}

// TestInterruptAfterLoadGateway: an interrupt during the drain still
// gives the gateway join one bounded final read of the truth records:
// every call the target executed is joined, and no read error is noted
// (the read is not cut by the interrupt that ended the drain).
//
// The interrupt waits until the target has begun every call sent: a call
// whose stream the interrupt closes before the target's handler began is
// rightly "not seen" by the join, and on a busy machine the last calls of
// the load reached the target after the drain began.
func TestInterruptAfterLoadGateway(t *testing.T) {
	t.Parallel()
	tg := newTarget(t, targetserver.Config{})
	plan := httpPlan(tg.URL, Load{Rate: perSec(10), Duration: time.Second, GracefulStop: 60 * time.Second}, slowTask(600, 100))
	plan.Gateway = &GatewayPlan{Truth: []string{strings.TrimSuffix(tg.URL, "/mcp")}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var lastTick Live
	tick := func(l Live) {
		lastTick = l
		if l.Phase == PhaseDrain && tg.Server.Stats().Started >= l.Scheduled-l.Dropped {
			cancel()
		}
	}
	sent := 0
	info, err := Run(ctx, plan, Options{Sink: func(r *results.Record) {
		if r.Outcome != results.Dropped {
			sent++
		}
	}, Tick: tick, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if !info.Interrupted {
		t.Fatalf("the run was not interrupted: the test proves nothing (last tick %+v; the target began %d calls)", lastTick, tg.Server.Stats().Started)
	}
	g := info.Gateway
	if g == nil || sent == 0 || g.Executions != sent || g.NotSeen != 0 || len(g.Errors) != 0 {
		t.Fatalf("sent %d calls; the join after the interrupt: %+v", sent, g)
	}
}
