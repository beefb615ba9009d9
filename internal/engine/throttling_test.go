package engine

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/results"
)

// TestThrottlingAndRetries runs 120 calls at 3× a target's rate limit,
// without retries and with two, and checks the throttled records against
// the target's count and each retry chain against its original call.
func TestThrottlingAndRetries(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		retries int
	}{
		{"no retries", 0},
		{"two retries", 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tg := newTarget(t, targetserver.Config{RateLimit: targetserver.Rate{Freq: 20, Per: time.Second}})
			plan := httpPlan(tg.URL, Load{Rate: perSec(60), Duration: 2 * time.Second}, echoCall)
			plan.Throttle = ThrottleRules{Retries: tt.retries, HonorRetryAfter: false}
			o := runLoad(t, context.Background(), plan)
			first := o.bySeq(t)
			if len(first) != 120 {
				t.Fatalf("%d first attempts, want 120", len(first))
			}
			checkThrottledRecords(t, o, tg)
			checkRetryChains(t, o, first, tt.retries)
		})
	}
}

// checkThrottledRecords checks that every record is ok or throttled with a
// 429 and its Retry-After, that some were throttled, and that the target
// counted as many.
func checkThrottledRecords(t *testing.T, o loadResult, tg *targetserver.Running) {
	throttled := 0
	for _, r := range o.recs {
		switch r.Outcome {
		case results.Throttled:
			throttled++
			if r.ThrottleKind != "http_429" || r.Status != 429 || r.RetryAfterMs == nil || *r.RetryAfterMs < 1000 {
				t.Errorf("throttled record: kind %q, status %d, retry-after %v; want http_429, 429, ≥ 1000 ms",
					r.ThrottleKind, r.Status, r.RetryAfterMs)
			}
		case results.OK:
			if r.RetryAfterMs != nil {
				t.Errorf("ok record with retry-after %d", *r.RetryAfterMs)
			}
		default:
			t.Errorf("seq %d: outcome %q (%s)", r.Seq, r.Outcome, r.Error)
		}
	}
	// A bucket of 20 refilled at 20/s lets about 60 of 120 through
	// (more when a busy machine spreads the calls out).
	if throttled == 0 {
		t.Errorf("%d throttled calls, want some at 3× the limit", throttled)
	}
	if s := tg.Server.Stats(); s.Throttled != int64(throttled) {
		t.Errorf("the target throttled %d calls, the records say %d", s.Throttled, throttled)
	}
}

// checkRetryChains checks that each retry follows a throttled attempt of
// its original call, up to retries of them, that the chains cut short are
// the RetriesNotMade, and that records = calls + retries.
func checkRetryChains(t *testing.T, o loadResult, first []*results.Record, retries int) {
	// Retries: each of seq's attempts follows a throttled one.
	attempts := make(map[uint64][]*results.Record)
	for _, r := range o.recs {
		if r.Retry != "" {
			if r.Retry != "throttled" {
				t.Errorf("retry kind %q", r.Retry)
			}
			attempts[r.Of] = append(attempts[r.Of], r)
		}
	}
	retried, cut := 0, 0
	for _, orig := range first {
		rs := attempts[orig.Seq]
		slices.SortFunc(rs, func(a, b *results.Record) int { return a.Attempt - b.Attempt })
		want := 0
		if orig.Outcome == results.Throttled {
			want = retries
		}
		for i, r := range rs {
			if r.Attempt != i+1 || r.Seq != orig.Seq || r.Tool != orig.Tool || r.ID == orig.ID {
				t.Errorf("retry %d of seq %d: attempt %d, seq %d, tool %q, id %d (original id %d)", i, orig.Seq, r.Attempt, r.Seq, r.Tool, r.ID, orig.ID)
			}
			if r.Outcome == results.OK {
				want = i + 1 // no retry after a success
			}
		}
		// A retry that would start after the load's end is not
		// made (a busy machine reads many 429s that late): the
		// chain ends on a throttled attempt, counted as not made.
		last := orig
		if len(rs) > 0 {
			last = rs[len(rs)-1]
		}
		if len(rs) < want && last.Outcome == results.Throttled {
			cut++
		} else if len(rs) != want {
			t.Errorf("seq %d (%s): %d retries, want %d", orig.Seq, orig.Outcome, len(rs), want)
		}
		retried += len(rs)
	}
	if cut != o.info.RetriesNotMade {
		t.Errorf("%d retry chains ended early, RetriesNotMade = %d", cut, o.info.RetriesNotMade)
	}
	if retries > 0 && retried+cut == 0 {
		t.Error("no retries recorded, none counted as not made")
	}
	if len(o.recs) != 120+retried {
		t.Errorf("%d records for 120 calls and %d retries", len(o.recs), retried)
	}
}
