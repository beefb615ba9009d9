package engine

import (
	"context"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/results"
	"github.com/mcpchaos/mcpchaos/targetserver"
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
	// Broken, the run lasts a minute (the longest retry wait); the bound
	// is the load, its graceful stop and generous room for a busy machine.
	if o.elapsed > 20*time.Second {
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

// TestRetryWaitCutByInterrupt: a retry wait already running ends with the
// load: an interrupt during a 3 s wait ends the run at once, and the retry
// is counted as not made.
func TestRetryWaitCutByInterrupt(t *testing.T) {
	t.Parallel()
	// One call in 3 s: the second call waits up to 3 s for its retry.
	tg := newTarget(t, targetserver.Config{RateLimit: targetserver.Rate{Freq: 1, Per: 3 * time.Second}})
	plan := httpPlan(tg.URL, Load{Rate: perSec(2), Duration: 60 * time.Second}, echoCall)
	plan.Throttle = ThrottleRules{Retries: 1, HonorRetryAfter: true}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// The first throttled call starts a wait; interrupt during it.
		for tg.Server.Stats().Throttled == 0 {
			if !sleep(ctx, 10*time.Millisecond) {
				return
			}
		}
		cancel()
	}()
	o := runLoad(t, ctx, plan)
	if !o.info.Interrupted {
		t.Error("Info.Interrupted = false after the interrupt")
	}
	if o.elapsed > 30*time.Second {
		t.Errorf("the run took %s after an interrupt; want it to end well before the 60 s load", o.elapsed)
	}
	if o.info.RetriesNotMade < 1 {
		t.Errorf("RetriesNotMade = %d, want the retry cut by the interrupt counted", o.info.RetriesNotMade)
	}
}
