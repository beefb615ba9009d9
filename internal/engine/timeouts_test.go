package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/results"
)

// The timeout tests are not parallel: they run before the parallel load
// tests, so the target's progress is not delayed by the other tests'
// load. Their margins (timeouts many times the step length) are generous
// for a busy machine; how late a timeout is enforced is the timing tier's
// (TestTimingTimeoutError).

// TestIdleTimeout: progress stops after 2 steps while the call goes on;
// the idle timeout fires idle after the last progress and cancels the
// call on the server.
func TestIdleTimeout(t *testing.T) {
	tg := newTarget(t, targetserver.Config{StallAfter: 2})
	// 3 s: a starved machine may hold the two notifications of the first
	// 100 ms back that long; the calls would last 20 s.
	const idle = 3 * time.Second
	plan := httpPlan(tg.URL, Load{Rate: perSec(4), Duration: time.Second}, slowTask(400, 50))
	plan.Timeouts = Timeouts{Idle: idle, Max: time.Minute}
	o := runLoad(t, context.Background(), plan)
	recs := o.bySeq(t)
	if len(recs) != 4 {
		t.Fatalf("%d records, want 4", len(recs))
	}
	for _, r := range recs {
		if r.Outcome != results.TimeoutIdle || r.CancelReason != "timeout_idle" {
			t.Errorf("seq %d: outcome %q, reason %q; want timeout_idle", r.Seq, r.Outcome, r.CancelReason)
			continue
		}
		if r.Progress == nil || r.Progress.Count != 2 {
			t.Errorf("seq %d: progress %+v, want the 2 notifications before the stall", r.Seq, r.Progress)
			continue
		}
		// The record's own times: the largest gap is the trailing one,
		// from the last progress to our cancel, so the last progress was
		// at CancelUs - MaxGapUs, and the deadline is idle after it.
		lastProg := r.CancelUs - r.Progress.MaxGapUs
		if d := r.DeadlineUs - lastProg - idle.Microseconds(); d < -2 || d > 2 {
			t.Errorf("seq %d: deadline at %dµs, last progress at %dµs: %dµs off last progress + idle", r.Seq, r.DeadlineUs, lastProg, d)
		}
		if lastProg <= r.FirstProgUs {
			t.Errorf("seq %d: last progress at %dµs, not after the first at %dµs", r.Seq, lastProg, r.FirstProgUs)
		}
		if d := r.CancelUs - r.DeadlineUs - r.TimeoutErrUs; d < -2 || d > 2 || r.TimeoutErrUs < 0 {
			t.Errorf("seq %d: timeout error %dµs (cancel %dµs, deadline %dµs), want their difference, not negative",
				r.Seq, r.TimeoutErrUs, r.CancelUs, r.DeadlineUs)
		}
		if r.ResponseUs != 0 {
			t.Errorf("seq %d: a response at %dµs after a timeout", r.Seq, r.ResponseUs)
		}
	}
	eventually(t, tg, "the target did not see the timed-out calls cancelled", func(s targetserver.Stats) bool {
		return s.Cancelled == 4 && s.Inflight == 0 && s.Completed == 0
	})
}

// TestCapTimeout: an endless call keeps sending progress, so only the cap
// stops it, and the record says progress was still flowing.
func TestCapTimeout(t *testing.T) {
	recs, _ := capTimeout(t, 3*time.Second)
	for _, r := range recs {
		if r.TimeoutErrUs < 0 {
			t.Errorf("seq %d: timeout error %dµs, before the deadline", r.Seq, r.TimeoutErrUs)
		}
	}
}

// capTimeout runs endless calls with progress every 50 ms and a cap of
// capAfter (the idle timeout ten times longer than the cap, and far above
// a 50 ms gap a busy machine stretched), checks what the cap did, and
// returns the records.
func capTimeout(t *testing.T, capAfter time.Duration) ([]*results.Record, loadResult) {
	t.Helper()
	tg := newTarget(t, targetserver.Config{Endless: true})
	plan := httpPlan(tg.URL, Load{Rate: perSec(4), Duration: time.Second}, slowTask(0, 50))
	plan.Timeouts = Timeouts{Idle: 10 * capAfter, Max: capAfter}
	o := runLoad(t, context.Background(), plan)
	recs := o.bySeq(t)
	if len(recs) != 4 {
		t.Fatalf("%d records, want 4", len(recs))
	}
	for _, r := range recs {
		if r.Outcome != results.TimeoutCap || r.CancelReason != "timeout_cap" || !r.CapWithProgress {
			t.Errorf("seq %d: outcome %q, reason %q, cap with progress %v; want timeout_cap with progress",
				r.Seq, r.Outcome, r.CancelReason, r.CapWithProgress)
		}
		// The cap runs from the send and is never moved.
		if d := r.DeadlineUs - r.SentUs - capAfter.Microseconds(); d < -2 || d > 2 {
			t.Errorf("seq %d: deadline %dµs, sent %dµs: not sent + %s", r.Seq, r.DeadlineUs, r.SentUs, capAfter)
		}
		if r.Progress == nil || r.Progress.Count < 2 {
			t.Errorf("seq %d: progress %+v, want notifications until the cap", r.Seq, r.Progress)
		}
		if r.Policies != nil {
			t.Errorf("seq %d: policies %v without any configured", r.Seq, r.Policies)
		}
	}
	eventually(t, tg, "the target kept running capped calls", func(s targetserver.Stats) bool {
		return s.Cancelled == 4 && s.Inflight == 0
	})
	return recs, o
}

// TestIdleResetByProgress: a 6 s call with progress every 100 ms outlives
// a 2 s idle timeout, because each notification resets it. (The gap
// between notifications is 20 times shorter than the timeout: a starved
// machine once stretched a 50 ms gap past an 800 ms timeout.)
func TestIdleResetByProgress(t *testing.T) {
	tg := newTarget(t, targetserver.Config{})
	const idle = 2 * time.Second
	plan := httpPlan(tg.URL, Load{Rate: perSec(4), Duration: 500 * time.Millisecond}, slowTask(60, 100))
	plan.Timeouts = Timeouts{Idle: idle, Max: 20 * time.Second}
	o := runLoad(t, context.Background(), plan)
	recs := o.bySeq(t)
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2", len(recs))
	}
	for _, r := range recs {
		if r.Outcome != results.OK || r.Progress == nil || r.Progress.Count != 60 || r.DeadlineUs != 0 {
			t.Errorf("seq %d: outcome %q, progress %+v, deadline %d; want ok after 60 notifications, no timeout",
				r.Seq, r.Outcome, r.Progress, r.DeadlineUs)
			continue
		}
		if d := time.Duration(r.ResponseUs-r.SentUs) * time.Microsecond; d <= 2*idle {
			t.Errorf("seq %d: answered %s after the send; want the whole 6 s, well past the idle timeout", r.Seq, d)
		}
	}
}

// TestIdleEqualToCap: with timeouts.idle equal to timeouts.max, calls
// silent throughout (no progress asked for) end timeout_cap, every one:
// the idle deadline falls at the cap's and is not armed, so the two
// timers no longer race to stop the call (nor cost a callback goroutine
// each at the same moment), and the cap's deadline is the record's.
func TestIdleEqualToCap(t *testing.T) {
	tg := newTarget(t, targetserver.Config{Endless: true})
	plan := httpPlan(tg.URL, Load{Rate: perSec(20), Duration: 500 * time.Millisecond}, CallSpec{Tool: targetserver.ToolSlowTask,
		Arguments: json.RawMessage(`{"steps":0,"step_ms":50}`)})
	plan.Timeouts = Timeouts{Idle: 300 * time.Millisecond, Max: 300 * time.Millisecond}
	o := runLoad(t, context.Background(), plan)
	if len(o.recs) < 5 {
		t.Fatalf("%d records, want about 10", len(o.recs))
	}
	for _, r := range o.recs {
		if r.Outcome != results.TimeoutCap || r.CancelReason != results.StopTimeoutCap || r.DeadlineUs-r.SentUs != 300_000 {
			t.Errorf("seq %d: outcome %q, reason %q, deadline %dµs after the send; want timeout_cap at 300000µs",
				r.Seq, r.Outcome, r.CancelReason, r.DeadlineUs-r.SentUs)
		}
	}
}

// TestSlowCancelLandsInRecord: a 2025 server slow to answer the cancel's
// POST (passed on to the target, which stops the call, but answered only
// 3 s later, with a 502) must not have the call's record handed over
// before the cancel returns. The call is released 150 ms after the cancel
// (the late window) and its record falls due a cut call's late window
// later (with the default graces about 2.2 s after the cancel), so it
// would be taken about 0.8 s before the POST's answer: it must wait for
// it and carry its failure (and the race detector must see no write to a
// record already handed over).
func TestSlowCancelLandsInRecord(t *testing.T) {
	tg := newTarget(t, targetserver.Config{Era: targetserver.Era2025, Endless: true})
	up, err := url.Parse(tg.URL)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: up.Scheme, Host: up.Host})
	rp.FlushInterval = -1
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		r.Body = io.NopCloser(bytes.NewReader(body))
		if !bytes.Contains(body, []byte(`"method":"notifications/cancelled"`)) {
			rp.ServeHTTP(w, r)
			return
		}
		rp.ServeHTTP(httptest.NewRecorder(), r) // the server stops the call
		time.Sleep(3 * time.Second)
		http.Error(w, "held", http.StatusBadGateway)
	}))
	t.Cleanup(front.Close)
	plan := httpPlan(front.URL+up.Path, Load{Rate: perSec(4), Duration: 500 * time.Millisecond}, slowTask(0, 50))
	plan.Protocol = client.Era20251125
	plan.Timeouts = Timeouts{Idle: 10 * time.Second, Max: 300 * time.Millisecond}
	o := runLoad(t, context.Background(), plan)
	if len(o.recs) == 0 {
		t.Fatal("no calls")
	}
	for _, r := range o.recs {
		if r.Outcome != results.TimeoutCap || !strings.Contains(r.Error, "notifications/cancelled") {
			t.Errorf("seq %d: outcome %q, error %q; want timeout_cap with the failed cancel POST", r.Seq, r.Outcome, r.Error)
		}
	}
}
