package engine

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/results"
)

// TestPacingEndToEnd: a constant rate schedules exactly rate × duration
// calls, each carrying the pacer's intended time, and sends each after
// that time (so latency counted from Scheduled is not inflated). How soon
// after is the timing tier's (TestTimingPacingEndToEnd).
func TestPacingEndToEnd(t *testing.T) {
	t.Parallel()
	pacingEndToEnd(t)
}

// pacingEndToEnd runs 100/s for 2 s against the built-in target, checks
// the schedule, and returns the records by seq and the run.
func pacingEndToEnd(t *testing.T) ([]*results.Record, loadResult) {
	t.Helper()
	tg := newTarget(t, targetserver.Config{})
	o := runLoad(t, context.Background(), httpPlan(tg.URL, Load{Rate: perSec(100), Duration: 2 * time.Second}, echoCall))
	recs := o.bySeq(t)
	if len(recs) != 200 {
		t.Fatalf("%d calls, want 200 (100/s for 2 s)", len(recs))
	}
	if n := o.count()[results.Dropped]; n != 0 {
		t.Errorf("%d dropped calls, want 0", n)
	}
	first := recs[0].Scheduled
	if d := first.Sub(o.info.Started); d < 0 {
		t.Errorf("first call scheduled %s before the start", -d)
	}
	ids := make(map[int64]bool)
	for _, r := range recs {
		// The intended times come from the pacer, not the clock: exact.
		if got, want := r.Scheduled.Sub(first), time.Duration(r.Seq)*10*time.Millisecond; got != want {
			t.Errorf("seq %d scheduled at +%s, want exactly +%s", r.Seq, got, want)
		}
		if r.Outcome != results.OK {
			t.Errorf("seq %d: outcome %q (%s), want ok", r.Seq, r.Outcome, r.Error)
			continue
		}
		if r.ID == 0 || ids[r.ID] {
			t.Errorf("seq %d: id %d is zero or reused", r.Seq, r.ID)
		}
		ids[r.ID] = true
		// Latency is measured from Scheduled: the sent and response
		// offsets are both from it, in order.
		if r.SentUs < 1 || r.ResponseUs < r.SentUs || r.EndUs < r.ResponseUs {
			t.Errorf("seq %d: sent %dµs, response %dµs, end %dµs: not in order", r.Seq, r.SentUs, r.ResponseUs, r.EndUs)
		}
	}
	return recs, o
}

// overlap returns the most calls whose [sent, response or end] spans
// overlap at any moment.
func overlap(recs []*results.Record) int {
	type edge struct {
		at time.Time
		d  int
	}
	var edges []edge
	for _, r := range recs {
		if r.SentUs == 0 {
			continue
		}
		end := max(r.ResponseUs, r.EndUs, r.CancelUs)
		edges = append(edges, edge{offset(r, r.SentUs), +1}, edge{offset(r, end), -1})
	}
	// Ends sort before starts at the same instant.
	slices.SortFunc(edges, func(a, b edge) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return a.d - b.d
	})
	n, most := 0, 0
	for _, e := range edges {
		n += e.d
		most = max(most, n)
	}
	return most
}

func TestDroppedTicks(t *testing.T) {
	t.Parallel()
	tg := newTarget(t, targetserver.Config{})
	o := runLoad(t, context.Background(), httpPlan(tg.URL, Load{Rate: perSec(50), Duration: time.Second, MaxInFlight: 2}, slowTask(10, 50)))
	recs := o.bySeq(t)
	if len(recs) != 50 {
		t.Fatalf("%d records, want one per tick (50)", len(recs))
	}
	c := o.count()
	if c[results.Dropped] == 0 || c[results.OK] == 0 || c[results.Dropped]+c[results.OK] != 50 {
		t.Fatalf("outcomes %v: want some ok and the rest dropped", c)
	}
	// Two workers busy for 500 ms each over 1 s: at most 2 × 3 calls start.
	if c[results.OK] > 6 {
		t.Errorf("%d calls ran, want at most 6 with 2 in flight for 1 s of 500 ms calls", c[results.OK])
	}
	for _, r := range recs {
		if r.Outcome == results.Dropped && (r.ID != 0 || r.SentUs != 0 || r.ResponseUs != 0 || r.Tool != targetserver.ToolSlowTask || r.Scheduled.IsZero()) {
			t.Errorf("dropped record %+v: want a tool and a scheduled time, no id, never sent", r)
		}
	}
	if n := overlap(recs); n != 2 {
		t.Errorf("at most %d calls in flight at once, want exactly max_in_flight = 2", n)
	}
	if s := tg.Server.Stats(); s.Started != int64(c[results.OK]) {
		t.Errorf("the target started %d calls, the records say %d ran", s.Started, c[results.OK])
	}
}

func TestGracefulStop(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		grace   time.Duration
		outcome string
		reason  results.StopReason
	}{
		// Calls scheduled over 1 s, each 2 s long.
		{"long enough", 20 * time.Second, results.OK, ""},
		{"too short", 200 * time.Millisecond, results.Cancelled, results.StopGracefulStop},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tg := newTarget(t, targetserver.Config{})
			o := runLoad(t, context.Background(), httpPlan(tg.URL, Load{Rate: perSec(5), Duration: time.Second, GracefulStop: tt.grace}, slowTask(20, 100)))
			recs := o.bySeq(t)
			if len(recs) != 5 {
				t.Fatalf("%d records, want 5", len(recs))
			}
			for _, r := range recs {
				if r.Outcome != tt.outcome || r.CancelReason != tt.reason {
					t.Errorf("seq %d: outcome %q, cancel reason %q; want %q, %q", r.Seq, r.Outcome, r.CancelReason, tt.outcome, tt.reason)
				}
				if tt.outcome == results.Cancelled && (r.CancelUs == 0 || r.ResponseUs != 0) {
					t.Errorf("seq %d: cancel %dµs, response %dµs; want a cancel and no response", r.Seq, r.CancelUs, r.ResponseUs)
				}
			}
			if o.info.Interrupted {
				t.Error("Interrupted without an interrupt")
			}
			if tt.outcome == results.Cancelled {
				// The target saw the cancels and stopped the work.
				eventually(t, tg, "the target never stopped the cancelled calls", func(s targetserver.Stats) bool {
					return s.Inflight == 0 && s.Started > 0 && s.Cancelled == s.Started && s.Completed == 0
				})
			}
		})
	}
}

func TestInterrupt(t *testing.T) {
	t.Parallel()
	tg := newTarget(t, targetserver.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Interrupt mid-load: once the target is working on 3 calls.
	interrupted := make(chan time.Time, 1)
	go func() {
		testutil.Poll(testutil.WaitLong, func() bool { return ctx.Err() != nil || tg.Server.Stats().Started >= 3 })
		cancel()
		// Taken after the cancel: no tick scheduled from now on can go out.
		interrupted <- time.Now()
	}()
	o := runLoad(t, ctx, httpPlan(tg.URL, Load{Rate: perSec(10), Duration: 10 * time.Second, GracefulStop: 30 * time.Second}, slowTask(20, 100)))
	at := <-interrupted
	if !o.info.Interrupted {
		t.Error("Info.Interrupted is false")
	}
	// The graceful stop (30 s) must not apply: the bound is short of it,
	// not how soon a busy machine ends the run.
	if d := time.Since(at); d > 25*time.Second {
		t.Errorf("Run returned %s after the interrupt (the graceful stop must not apply)", d)
	}
	// Every scheduled tick has one record (bySeq checks 0..n-1 without gaps).
	recs := o.bySeq(t)
	if len(recs) < 3 {
		t.Fatalf("%d calls, want at least the 3 the target started", len(recs))
	}
	const slack = 50 * time.Millisecond
	ids := 0
	for _, r := range recs {
		if r.Scheduled.After(at.Add(slack)) {
			t.Errorf("seq %d scheduled %s after the interrupt", r.Seq, r.Scheduled.Sub(at))
		}
		if r.Outcome != results.Cancelled || r.CancelReason != "interrupted" {
			t.Errorf("seq %d: outcome %q, reason %q (%s); want cancelled, interrupted", r.Seq, r.Outcome, r.CancelReason, r.Error)
		}
		if r.ID != 0 {
			ids++
		}
	}
	// Every call the target started is one of ours, with a record, and the
	// cancel reached it.
	eventually(t, tg, "the target kept working after the interrupt", func(s targetserver.Stats) bool {
		return s.Inflight == 0 && s.Cancelled == s.Started
	})
	if s := tg.Server.Stats(); s.Started > int64(ids) || s.Completed != 0 {
		t.Errorf("target stats %+v; %d calls sent", s, ids)
	}
}

func TestSameSeedSameCalls(t *testing.T) {
	t.Parallel()
	tg := newTarget(t, targetserver.Config{})
	mix := []CallSpec{echoCall, slowTask(1, 1), {Tool: targetserver.ToolCPUTask, Weight: 2, Arguments: []byte(`{"steps":1,"step_ms":1}`)}}
	tools := func(seed int64) []string {
		plan := httpPlan(tg.URL, Load{Rate: perSec(100), Duration: 400 * time.Millisecond}, mix...)
		plan.Seed = seed
		var out []string
		for _, r := range runLoad(t, context.Background(), plan).bySeq(t) {
			if r.Outcome != results.OK {
				t.Errorf("seed %d seq %d: %s %s", seed, r.Seq, r.Outcome, r.Error)
			}
			out = append(out, r.Tool)
		}
		return out
	}
	a, b, c := tools(7), tools(7), tools(8)
	if len(a) != 40 {
		t.Fatalf("%d calls, want 40", len(a))
	}
	if !slices.Equal(a, b) {
		t.Errorf("the same seed gave different calls:\n%v\n%v", a, b)
	}
	if slices.Equal(a, c) {
		t.Errorf("seeds 7 and 8 gave the same calls: %v", a)
	}
	seen := make(map[string]int)
	for _, tool := range a {
		seen[tool]++
	}
	if len(seen) != 3 {
		t.Errorf("tools used %v, want all three", seen)
	}
}

func TestStdioProcesses(t *testing.T) {
	t.Parallel()
	exe := bin.Need(t)
	plan := Plan{Name: "stdio", Seed: 1, LateWindow: 150 * time.Millisecond,
		Target: Target{Stdio: &StdioTarget{StdioConfig: client.StdioConfig{Command: []string{exe, "serve", "--stdio"}}, Processes: 3}},
		Load:   Load{Rate: perSec(60), Duration: 500 * time.Millisecond}, Calls: []CallSpec{echoCall, slowTask(2, 10)},
		Timeouts: Timeouts{Idle: 10 * time.Second, Max: 20 * time.Second, Connect: testutil.WaitLong}, Orphans: quickOrphans}
	o := runLoad(t, context.Background(), plan)
	recs := o.bySeq(t)
	if len(recs) != 30 {
		t.Fatalf("%d records, want 30", len(recs))
	}
	if o.info.Header.Transport != "stdio" {
		t.Errorf("transport %q", o.info.Header.Transport)
	}
	per := make(map[int]int)
	ids := make(map[int64]int)
	for _, r := range recs {
		if r.Outcome != results.OK {
			t.Errorf("seq %d: %s %s", r.Seq, r.Outcome, r.Error)
		}
		per[r.Process]++
		ids[r.ID]++
	}
	for p := 1; p <= 3; p++ {
		if per[p] != 10 {
			t.Errorf("process %d ran %d calls, want 10 (round robin): %v", p, per[p], per)
		}
	}
	if len(per) != 3 {
		t.Errorf("processes used: %v, want 1..3", per)
	}
	for id, n := range ids {
		if id == 0 || n > 1 {
			t.Errorf("id %d used %d times", id, n)
		}
	}
}

// TestBuiltinStdio runs the builtin stdio target the way a scenario does:
// `mcpchaos serve --stdio` plus the knobs' flags.
func TestBuiltinStdio(t *testing.T) {
	t.Parallel()
	exe := bin.Need(t)
	cfg := targetserver.Config{StallAfter: 1}
	plan := Plan{Name: "builtin-stdio", Seed: 1, LateWindow: 150 * time.Millisecond,
		Target: Target{Builtin: &Builtin{Transport: "stdio", Command: append([]string{exe, "serve", "--stdio"}, cfg.Args()...)}},
		Load:   Load{Rate: perSec(10), Duration: 300 * time.Millisecond}, Calls: []CallSpec{slowTask(5, 20)},
		Timeouts: Timeouts{Idle: 10 * time.Second, Max: 20 * time.Second, Connect: testutil.WaitLong}, Orphans: quickOrphans}
	o := runLoad(t, context.Background(), plan)
	recs := o.bySeq(t)
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3", len(recs))
	}
	for _, r := range recs {
		// The knob reached the server: progress stops after step 1.
		if r.Outcome != results.OK || r.Process != 1 || r.Progress == nil || r.Progress.Count != 1 {
			t.Errorf("seq %d: outcome %q, process %d, progress %+v; want ok on process 1 with 1 notification", r.Seq, r.Outcome, r.Process, r.Progress)
		}
	}
}

// TestStagesWithoutRate: stages with no starting rate ramp from zero (a
// zero vegeta Rate must not be read as 0/0 calls per second: that pacer
// would never wait and never stop). 0 → 100/s over 1 s is 50 calls.
func TestStagesWithoutRate(t *testing.T) {
	t.Parallel()
	tg := newTarget(t, targetserver.Config{})
	// A bound far above the 1 s ramp on a busy machine: a pacer that
	// never waits would schedule tens of thousands of calls a second,
	// which the count below catches.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	o := runLoad(t, ctx, httpPlan(tg.URL, Load{Stages: []Stage{{To: perSec(100), Over: time.Second}}}, echoCall))
	if o.info.Interrupted {
		t.Fatal("the run had to be stopped: the load never ended")
	}
	if n := len(o.bySeq(t)); n < 49 || n > 51 {
		t.Errorf("%d calls, want 50 (a ramp from 0 to 100/s over 1 s)", n)
	}
}
