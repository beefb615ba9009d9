package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/results"
)

// shardScenario has outcomes that do not depend on timing: echo calls
// answer at once, slow_task calls take 400 ms, and the cancel fault cuts
// the ones drawn for it at a fixed 150 ms (the target notices the cancel
// only after 1 s: each cut call runs its last 250 ms for nobody, leaked
// call-seconds that only the sum of the shards' calls in flight shows).
const shardScenario = `name: shards
seed: 7
target:
  http: {url: %q}
load:
  rate: 40/1s
  duration: 4s
  max_in_flight: 200
timeouts: {idle: 30s, max: 30s} # a starved machine stays within them (5 s did not, beside other work)
calls:
  - {tool: slow_task, weight: 3, arguments: {steps: 4, step_ms: 100}, progress: true}
  - {tool: echo, weight: 1, arguments: {text: hi}}
faults:
  - {kind: cancel, probability: 0.3, tools: [slow_task], after: 150ms}
orphans:
  grace: 500ms
  probes: [{name: inflight, metric: {url: %q, name: mcpchaos_target_inflight}}]
checks:
  - calls.transport_error == 0
fail_on_violation: false # the leaked work is a violation: the test compares it
`

// callKey is what the seed decides about a call: its tool, its outcome and
// its faults.
type callKey struct {
	tool, outcome, faults string
}

// callsBySeq reads the first attempt of every call of the results files.
func callsBySeq(t *testing.T, paths ...string) map[uint64]callKey {
	t.Helper()
	calls := map[uint64]callKey{}
	for _, p := range paths {
		_, err := results.ScanFile(p, results.Handler{Record: func(r *results.Record) error {
			if r.Retry != "" {
				return nil
			}
			if _, dup := calls[r.Seq]; dup {
				return fmt.Errorf("seq %d twice", r.Seq)
			}
			var fs []string
			for _, f := range r.Faults {
				fs = append(fs, fmt.Sprintf("%s skipped=%v", f.Kind, f.Skipped))
			}
			calls[r.Seq] = callKey{r.Tool, r.Outcome, strings.Join(fs, ",")}
			return nil
		}})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
	return calls
}

// shardRun runs the mcpchaos binary of the tests in dir.
type shardRun struct {
	t        *testing.T
	self     string
	dir      string
	scenario string
}

// newShardRun writes the scenario (a format with the target's URL and
// metrics URL) for one built-in target.
func newShardRun(t *testing.T, format string, tg *targetserver.Running) *shardRun {
	return &shardRun{t: t, self: bin.Need(t), dir: t.TempDir(),
		scenario: writeScenario(t, "shards.yaml", fmt.Sprintf(format, tg.URL, tg.MetricsURL))}
}

// run runs mcpchaos with args, the environment plus env, for 2 minutes at
// most.
func (r *shardRun) run(env []string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.self, args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// single runs the scenario in one process into name.
func (r *shardRun) single(name string) string {
	path := filepath.Join(r.dir, name)
	if out, err := r.run(nil, "run", "-q", "-o", path, r.scenario); err != nil {
		r.t.Fatalf("the single run: %v\n%s", err, out)
	}
	return path
}

// shards runs the scenario as four shard processes started on one
// --start-at instant (the fourth the way a Kubernetes Indexed Job runs
// it), and returns their results files.
func (r *shardRun) shards() []string {
	// Far enough ahead for four processes to start on a busy machine (a
	// shard that starts late drops the ticks it missed).
	startAt := time.Now().Add(15 * time.Second).UTC().Format(time.RFC3339Nano)
	var shards []string
	var wg sync.WaitGroup
	outs := make([]string, 4)
	errs := make([]error, 4)
	for i := range 4 {
		out := filepath.Join(r.dir, fmt.Sprintf("shard-%d.jsonl", i))
		shards = append(shards, out)
		args := []string{"run", "-q", "-o", out, "--shard", fmt.Sprintf("%d/4", i), "--start-at", startAt, r.scenario}
		var env []string
		if i == 3 {
			args = []string{"run", "-q", "-o", out, r.scenario}
			env = []string{"JOB_COMPLETION_INDEX=3", "MCPCHAOS_SHARDS=4", "MCPCHAOS_START_AT=" + startAt}
		}
		wg.Go(func() { outs[i], errs[i] = r.run(env, args...) })
	}
	wg.Wait()
	for i := range 4 {
		if errs[i] != nil || strings.Contains(outs[i], "reached --start-at") {
			r.t.Fatalf("shard %d/4: %v\n%s", i, errs[i], outs[i])
		}
	}
	return shards
}

// report merges files into the JSON summary name, and reads it.
func (r *shardRun) report(name string, files ...string) map[string]any {
	path := filepath.Join(r.dir, name)
	args := append([]string{"report", "--same-scenario", "--format", "json", "-o", path}, files...)
	if out, err := r.run(nil, args...); err != nil {
		r.t.Fatalf("mcpchaos %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return readJSON(r.t, path)
}

// TestShardsAddUp: four shards, each its own mcpchaos process started on
// the same --start-at instant, against one built-in target, merged by
// `mcpchaos report`, are the single run of the same scenario and seed:
// the same calls by seq (tool, outcome, faults), the same totals, outcome
// counts and faults. The leaked call-seconds and the rates, which each
// run's timing decides, are the timing tier's (TestTimingShardsAddUp).
func TestShardsAddUp(t *testing.T) {
	_, _, shards, r := shardsAddUp(t)
	// The same shards with one of them twice are refused, with the reason.
	out, err := r.run(nil, append([]string{"report", "--format", "json", "-o", filepath.Join(r.dir, "dup.json")},
		append(slices.Clone(shards), shards[2])...)...)
	if err == nil || !strings.Contains(out, "are both shard 2/4") {
		t.Errorf("merging shard 2 twice: %v\n%s", err, out)
	}
}

// shardsAddUp runs shardScenario once whole and once as four shards,
// checks that the shards' calls are the single run's, and returns both
// runs' JSON summaries and the shards' results files.
func shardsAddUp(t *testing.T) (whole, merged map[string]any, shards []string, r *shardRun) {
	t.Helper()
	tg, err := targetserver.StartHTTP(context.Background(), targetserver.Config{StopDelay: time.Second}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	r = newShardRun(t, shardScenario, tg)
	single := r.single("single.jsonl")
	shards = r.shards()

	want, got := callsBySeq(t, single), callsBySeq(t, shards...)
	if len(want) != 160 {
		t.Errorf("the single run made %d calls, want 160 (40/s for 4 s)", len(want))
	}
	for seq, w := range want {
		if g, ok := got[seq]; !ok || g != w {
			t.Errorf("seq %d: shards %+v (present %v), single run %+v", seq, g, ok, w)
		}
	}
	for seq := range got {
		if _, ok := want[seq]; !ok {
			t.Errorf("seq %d made by a shard, not by the single run", seq)
		}
	}

	whole, merged = r.report("single.json", single), r.report("merged.json", shards...)
	keys := []string{"calls.total", "faults.cancel.injected", "faults.cancel.skipped"}
	for _, o := range results.Outcomes {
		keys = append(keys, "calls."+o)
	}
	for _, k := range keys {
		if w, g := num(t, whole, k), num(t, merged, k); w != g {
			t.Errorf("%s: merged shards %g, single run %g", k, g, w)
		}
	}
	if n := num(t, merged, "faults.cancel.injected"); n == 0 {
		t.Error("no cancel fault injected: the scenario tests nothing")
	}
	return whole, merged, shards, r
}

// orphanScenario leaves every call running on the server: each is cut
// (by the cancel fault at 500 ms, or by timeouts.max at 1 s) and the
// target notices a cancel only after 30 s, so the calls run long past
// every probe reading. They send no progress: the machine stays quiet.
const orphanScenario = `name: shard-orphans
seed: 7
target:
  http: {url: %q}
load:
  rate: 20/1s
  duration: 2s
timeouts: {idle: 1s, max: 1s}
calls:
  - {tool: slow_task, arguments: {steps: 100, step_ms: 100}}
faults:
  - {kind: cancel, probability: 0.5, after: 500ms} # long after the call reached the server
orphans:
  grace: 300ms
  drain_max: 300ms
  probes: [{name: inflight, metric: {url: %q, name: mcpchaos_target_inflight}}]
fail_on_violation: false # the orphans are violations: the test counts them
`

// TestShardsOrphans: the orphans four shards of a shared server find,
// merged, are the single run's, not four times as many: every shard read
// the server's whole in-flight gauge, once every shard's calls were over.
// Each run has a target of its own, so the single run's orphans are not
// the shards' baseline.
func TestShardsOrphans(t *testing.T) {
	target := func() *targetserver.Running {
		tg, err := targetserver.StartHTTP(context.Background(), targetserver.Config{StopDelay: 30 * time.Second}, "")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tg.Close() })
		return tg
	}
	wholeTarget, shardedTarget := target(), target()
	whole := newShardRun(t, orphanScenario, wholeTarget)
	sharded := newShardRun(t, orphanScenario, shardedTarget)
	w, g := whole.report("single.json", whole.single("single.jsonl")), sharded.report("merged.json", sharded.shards()...)
	if wn, gn := num(t, w, "calls.total"), num(t, g, "calls.total"); wn != 40 || gn != 40 {
		t.Errorf("calls.total: merged shards %g, single run %g; want 40", gn, wn)
	}
	// Every call that reached its target is left running there (on a
	// starved machine a call may hit its 1 s cap before it is sent): the
	// orphans are the calls the target started, which adding the four
	// shards' readings of the one gauge would count four times.
	for _, k := range []string{"cancellation.orphaned", "cancellation.by_probe.inflight"} {
		for _, c := range []struct {
			run     string
			summary map[string]any
			target  *targetserver.Running
		}{{"single run", w, wholeTarget}, {"merged shards", g, shardedTarget}} {
			started := float64(c.target.Server.Stats().Started)
			if got := num(t, c.summary, k); got != started || started < 20 {
				t.Errorf("%s: %s %g, its target started %g calls; want them all (and most of the 40)", k, c.run, got, started)
			}
		}
	}
}
