package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/results"
	"github.com/mcpchaos/mcpchaos/targetserver"
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
timeouts: {idle: 2s, max: 2s} # each shard reads its probes 2 s (+1 s) after the load's end
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

// TestShardsAddUp: four shards, each its own mcpchaos process started on
// the same --start-at instant, against one built-in target, merged by
// `mcpchaos report`, are the single run of the same scenario and seed:
// the same calls by seq (tool, outcome, faults), the same totals, outcome
// counts, faults and orphans, and an achieved rate within 1% of the
// offered.
func TestShardsAddUp(t *testing.T) {
	self := bin.Need(t)
	tg, err := targetserver.StartHTTP(context.Background(), targetserver.Config{StopDelay: time.Second}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	dir := t.TempDir()
	scenario := writeScenario(t, "shards.yaml", fmt.Sprintf(shardScenario, tg.URL, tg.MetricsURL))
	mcpchaos := func(env []string, args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, self, args...)
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	single := filepath.Join(dir, "single.jsonl")
	if out, err := mcpchaos(nil, "run", "-q", "-o", single, scenario); err != nil {
		t.Fatalf("the single run: %v\n%s", err, out)
	}

	// Far enough ahead for four processes to start on a busy machine.
	startAt := time.Now().Add(6 * time.Second).UTC().Format(time.RFC3339Nano)
	var shards []string
	var wg sync.WaitGroup
	outs := make([]string, 4)
	errs := make([]error, 4)
	for i := range 4 {
		out := filepath.Join(dir, fmt.Sprintf("shard-%d.jsonl", i))
		shards = append(shards, out)
		args := []string{"run", "-q", "-o", out, "--shard", fmt.Sprintf("%d/4", i), "--start-at", startAt, scenario}
		var env []string
		if i == 3 { // the way a Kubernetes Indexed Job runs it
			args = []string{"run", "-q", "-o", out, scenario}
			env = []string{"JOB_COMPLETION_INDEX=3", "MCPCHAOS_SHARDS=4", "MCPCHAOS_START_AT=" + startAt}
		}
		wg.Go(func() { outs[i], errs[i] = mcpchaos(env, args...) })
	}
	wg.Wait()
	for i := range 4 {
		if errs[i] != nil || strings.Contains(outs[i], "reached --start-at") {
			t.Fatalf("shard %d/4: %v\n%s", i, errs[i], outs[i])
		}
	}

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

	report := func(name string, files ...string) map[string]any {
		path := filepath.Join(dir, name)
		args := append([]string{"report", "--same-scenario", "--format", "json", "-o", path}, files...)
		if out, err := mcpchaos(nil, args...); err != nil {
			t.Fatalf("mcpchaos %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return readJSON(t, path)
	}
	whole, merged := report("single.json", single), report("merged.json", shards...)
	keys := []string{"calls.total", "cancellation.orphaned", "faults.cancel.injected", "faults.cancel.skipped"}
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
	// The leaked call-seconds are measured on a clock and sampled every
	// 100 ms: the merge of the shards finds about the single run's.
	const leaked = "cancellation.leaked_call_seconds"
	t.Logf("%s: merged shards %g, single run %g", leaked, num(t, merged, leaked), num(t, whole, leaked))
	if w, g := num(t, whole, leaked), num(t, merged, leaked); w < 1 || math.Abs(g-w) > 0.3*w+0.5 {
		t.Errorf("%s: merged shards %g, single run %g; want about the same, and some", leaked, g, w)
	}
	offered, achieved := num(t, merged, "rate.offered"), num(t, merged, "rate.achieved")
	if math.Abs(achieved-offered) > offered/100 || math.Abs(offered-40) > 0.4 {
		t.Errorf("merged rate offered %g/s, achieved %g/s: want 40/s offered and achieved within 1%%", offered, achieved)
	}

	// The same shards with one of them twice are refused, with the reason.
	out, err := mcpchaos(nil, append([]string{"report", "--format", "json", "-o", filepath.Join(dir, "dup.json")},
		append(slices.Clone(shards), shards[2])...)...)
	if err == nil || !strings.Contains(out, "are both shard 2/4") {
		t.Errorf("merging shard 2 twice: %v\n%s", err, out)
	}
}
