package main

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/results"
)

// TestLimitsConfirm: mcpchaos limits carries the scenario's client
// section: against the built-in target whose deploy asks for confirmation
// on every call, each call of the search is answered and completes, and
// the target's own log shows each one done.
func TestLimitsConfirm(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "calls.log")
	path := writeScenario(t, "confirm.yaml", fmt.Sprintf(`name: limits-confirm
seed: 3
protocol: "2026-07-28"
target: {builtin: {transport: http, confirm: true, log_calls: %q}}
load: {rate: 1/1s, duration: 1s}
timeouts: {idle: 5s, max: 10s}
calls: [{tool: deploy, arguments: {steps: 1, step_ms: 1}}]
client: {elicitation: {content: {confirm: true}}}
orphans: {grace: 100ms}
`, log))
	sum, out := filepath.Join(dir, "s.json"), filepath.Join(dir, "calls.jsonl")
	code, _, stderr := runCLI(t, t.Context(), "limits", path, "-q", "--budget", "3s", "--max-rate", "10/1s", "--summary-json", sum, "-o", out)
	if code != 0 {
		t.Fatalf("exit %d, want 0; stderr:\n%s", code, stderr)
	}
	m := readJSON(t, sum)
	total := num(t, m, "calls.total")
	if total == 0 || num(t, m, "calls.ok") != total || num(t, m, "mrtr.rounds") != total || num(t, m, "mrtr.elicitation") != total {
		t.Errorf("calls %v, mrtr %v: want every call ok after one answered confirmation", m["calls"], m["mrtr"])
	}
	f, err := results.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	done := testutil.CallsDone(t, log)
	n := 0
	for _, r := range f.Records {
		if r.Type != results.TypeCall {
			continue
		}
		n++
		if !done[r.ID] {
			t.Errorf("call %d (seq %d) is not in the server's log as done", r.ID, r.Seq)
		}
	}
	if n == 0 || len(done) != n {
		t.Errorf("the server logged %d calls done, the search made %d", len(done), n)
	}
}
