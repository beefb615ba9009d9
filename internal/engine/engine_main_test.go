package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/results"
	vegeta "github.com/tsenart/vegeta/v12/lib"
)

var bin testutil.Binary

func TestMain(m *testing.M) {
	os.Exit(testutil.Main(m, &bin))
}

// newTarget starts the built-in target over HTTP on a free loopback
// port and stops it when the test ends.
func newTarget(t *testing.T, cfg targetserver.Config) *targetserver.Running {
	t.Helper()
	r, err := targetserver.StartHTTP(context.Background(), cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

// perSec is n calls per second.
func perSec(n int) vegeta.Rate { return vegeta.Rate{Freq: n, Per: time.Second} }

// slowTask is a slow_task call with progress.
func slowTask(steps, stepMs int) CallSpec {
	return CallSpec{Tool: targetserver.ToolSlowTask, Progress: true,
		Arguments: json.RawMessage(fmt.Sprintf(`{"steps":%d,"step_ms":%d}`, steps, stepMs))}
}

var echoCall = CallSpec{Tool: targetserver.ToolEcho, Arguments: json.RawMessage(`{"text":"hi"}`)}

// httpPlan is a plan against url with a short late window and timeouts
// that never fire unless a test sets its own.
func httpPlan(url string, load Load, calls ...CallSpec) Plan {
	return Plan{Name: "test", Seed: 1, Target: Target{HTTP: &client.HTTPConfig{URL: url}}, Load: load, Calls: calls,
		Timeouts: Timeouts{Idle: 20 * time.Second, Max: 40 * time.Second, Connect: testutil.WaitLong}, LateWindow: 150 * time.Millisecond}
}

// quickOrphans keeps the orphan probes of stdio runs (which the engine
// adds by itself) from adding seconds to every test.
var quickOrphans = Orphans{Grace: 100 * time.Millisecond, QuietWindow: 100 * time.Millisecond}

// loadResult is a run's result as the tests see it.
type loadResult struct {
	info    *Info
	recs    []*results.Record // in the order the sink got them
	elapsed time.Duration     // how long Run took
}

// runLoad runs plan, collecting every record, and fails the test when Run
// cannot start.
func runLoad(t *testing.T, ctx context.Context, plan Plan) loadResult {
	t.Helper()
	var o loadResult
	start := time.Now()
	info, err := Run(ctx, plan, Options{Sink: func(r *results.Record) { o.recs = append(o.recs, r) }, Version: "test"})
	o.elapsed = time.Since(start)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	o.info = info
	return o
}

// bySeq returns the records of first attempts (not retries or re-issues)
// ordered by seq, failing on a duplicate seq.
func (o loadResult) bySeq(t *testing.T) []*results.Record {
	t.Helper()
	var out []*results.Record
	for _, r := range o.recs {
		if r.Retry == "" {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b *results.Record) int { return int(a.Seq) - int(b.Seq) })
	for i, r := range out {
		if r.Seq != uint64(i) {
			t.Fatalf("records' seqs are not 0..%d: position %d holds seq %d", len(out)-1, i, r.Seq)
		}
	}
	return out
}

// count returns how many records have each outcome.
func (o loadResult) count() map[string]int {
	m := make(map[string]int)
	for _, r := range o.recs {
		m[r.Outcome]++
	}
	return m
}

// offset converts a record's offset to a time.
func offset(r *results.Record, us int64) time.Time {
	return r.Scheduled.Add(time.Duration(us) * time.Microsecond)
}

// eventually waits, up to testutil.WaitLong, until cond holds for the
// target's stats (the target may lag on a busy machine).
func eventually(t *testing.T, tg *targetserver.Running, what string, cond func(targetserver.Stats) bool) {
	t.Helper()
	var s targetserver.Stats
	if !testutil.Poll(testutil.WaitLong, func() bool { s = tg.Server.Stats(); return cond(s) }) {
		t.Fatalf("after %s: %s; target stats %+v", testutil.WaitLong, what, s)
	}
}
