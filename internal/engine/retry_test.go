package engine

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/results"
)

// TestRetryWaitObeysLoadEnd: a server that throttles with a Retry-After of
// a day, and retries that honour it, do not hold a 1 s load past its end:
// every retry would start after the load's end, so none is made, each is
// counted as not made, and the run ends long before the minute a retry
// wait may last.
func TestRetryWaitObeysLoadEnd(t *testing.T) {
	t.Parallel()
	// One call a day: every call after the first gets 429 with a
	// Retry-After of about 86400 s.
	tg := newTarget(t, targetserver.Config{RateLimit: targetserver.Rate{Freq: 1, Per: 24 * time.Hour}})
	plan := httpPlan(tg.URL, Load{Rate: perSec(10), Duration: time.Second, GracefulStop: 2 * time.Second}, echoCall)
	plan.Throttle = ThrottleRules{Retries: 3, HonorRetryAfter: true}
	o := runLoad(t, context.Background(), plan)
	// Broken, the run lasts a minute (the longest retry wait): the bound
	// is that minute, not how soon a busy machine ends the run (the
	// counts below say what happened to each retry).
	if o.elapsed >= maxRetryWait {
		t.Errorf("the run took %s; want it to end soon after the 1 s load and its 2 s graceful stop", o.elapsed)
	}
	throttled := 0
	for _, r := range o.recs {
		if r.Retry != "" {
			t.Errorf("seq %d: a retry (attempt %d) was made after the load's end", r.Seq, r.Attempt)
		}
		if r.Outcome == results.Throttled {
			throttled++
			if r.RetryAfterMs == nil || *r.RetryAfterMs < 3600_000 {
				t.Errorf("seq %d: retry-after %v, want about a day", r.Seq, r.RetryAfterMs)
			}
		}
	}
	if throttled < 5 {
		t.Fatalf("%d throttled calls of %d, want all but the first", throttled, len(o.recs))
	}
	if o.info.RetriesNotMade != throttled {
		t.Errorf("RetriesNotMade = %d, want %d (every throttled call)", o.info.RetriesNotMade, throttled)
	}
}

// TestRetryWaitCutByInterrupt: a retry wait ends with the load: an
// interrupt that comes once a throttled call has started its wait (up to
// 3 s) ends the run, and the retry is counted as not made. The interrupt
// comes from the engine's own signal that the wait started, not from the
// server's count of throttled calls, which comes before the client reads
// the 429.
func TestRetryWaitCutByInterrupt(t *testing.T) {
	t.Parallel()
	// One call in 3 s: the second call waits up to 3 s for its retry.
	tg := newTarget(t, targetserver.Config{RateLimit: targetserver.Rate{Freq: 1, Per: 3 * time.Second}})
	plan := httpPlan(tg.URL, Load{Rate: perSec(2), Duration: 60 * time.Second}, echoCall)
	plan.Throttle = ThrottleRules{Retries: 1, HonorRetryAfter: true}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var waits atomic.Int64
	opts := Options{Version: "test", retryWaitStarts: func(wait time.Duration) {
		if wait > 0 {
			waits.Add(1)
			cancel()
		}
	}}
	info, err := Run(ctx, plan, opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if waits.Load() == 0 {
		t.Fatal("no retry wait started: the target throttled nothing, or sent no Retry-After")
	}
	if !info.Interrupted {
		t.Error("Info.Interrupted = false after the interrupt")
	}
	if info.RetriesNotMade < 1 {
		t.Errorf("RetriesNotMade = %d, want the retry cut by the interrupt counted", info.RetriesNotMade)
	}
}
