package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// TestRunOutOfMemory runs the real binary under GOMEMLIMIT=48MiB with
// 3,000 calls a second of 2 s over stdio for 6 s (about 6,000 in flight;
// the server is a process of its own, started without the limit): from
// 85% of the limit new calls are not sent, and once the first calls end
// and a collection has made room, calls go again. The refused calls must
// end client_limit with the limit "memory"; some calls must end ok after
// the first refusal; no verdict may blame the server; the summary must
// name the limit, its source and how to raise it; and the run must fail
// with exit status 3. Without the guard the collector works harder and
// every call is sent: the run passes.
func TestRunOutOfMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the real binary with 18,000 calls")
	}
	path := writeScenario(t, "memory.yaml", fmt.Sprintf(`name: memory
target: {stdio: {command: [env, -u, GOMEMLIMIT, %q, serve, --stdio]}}
load: {rate: 3000/1s, duration: 6s, max_in_flight: 20000}
timeouts: {idle: 10s, max: 20s}
calls: [{tool: slow_task, arguments: {steps: 1, step_ms: 2000}}]
orphans: {grace: 200ms}
`, bin.Need(t)))
	dir := t.TempDir()
	sumPath, resPath := filepath.Join(dir, "s.json"), filepath.Join(dir, "r.jsonl")
	cmd := exec.CommandContext(t.Context(), bin.Need(t), "run", "-q", "--summary-json", sumPath, "--output", resPath, path)
	cmd.Env = append(os.Environ(), "GOMEMLIMIT=48MiB")
	_, out := runAtClientLimit(t, cmd, sumPath, "memory", func(c report.ClientLimits) int { return c.Memory })
	firstRefused, okAfter := resumed(t, resPath)
	if firstRefused < 0 || okAfter == 0 {
		t.Errorf("first refused call %d, ok calls after it %d: want calls sent again once the first ended\n%s", firstRefused, okAfter, out)
	}
	wantText(t, out, "Client limit", "memory limit (GOMEMLIMIT)", "raise GOMEMLIMIT", "FAIL (the client ran out of memory")
}

// resumed reads a results file: the seq of the first call that ended
// client_limit (-1: none) and how many calls after it ended ok.
func resumed(t *testing.T, path string) (firstRefused int64, okAfter int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var calls []results.Record
	for line := range strings.SplitSeq(string(b), "\n") {
		var r results.Record
		if json.Unmarshal([]byte(line), &r) == nil && r.Type == results.TypeCall {
			calls = append(calls, r)
		}
	}
	firstRefused = -1
	for _, r := range calls {
		if r.Outcome == results.ClientLimit && (firstRefused < 0 || int64(r.Seq) < firstRefused) {
			firstRefused = int64(r.Seq)
		}
	}
	for _, r := range calls {
		if firstRefused >= 0 && r.Outcome == results.OK && int64(r.Seq) > firstRefused {
			okAfter++
		}
	}
	return firstRefused, okAfter
}
