package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/report"
)

// TestRunOutOfMemory runs the real binary under GOMEMLIMIT=24MiB with
// 3,000 calls of 4 s in flight over stdio (the built-in target, a process
// of its own whose memory is not ours): past 90% of the limit new calls
// are not sent. They must end client_limit with the limit "memory"; no
// verdict may blame the server; the summary must name the limit, its
// source and how to raise it; and the run must fail with exit status 3.
// Without the guard the garbage collector works harder and every call is
// sent: the run passes.
func TestRunOutOfMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the real binary with 3,000 calls")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "memory.yaml")
	src := `name: memory
target: {builtin: {transport: stdio}}
load: {rate: 1000/1s, duration: 3s, max_in_flight: 20000}
timeouts: {idle: 10s, max: 20s}
calls: [{tool: slow_task, arguments: {steps: 1, step_ms: 4000}}]
orphans: {grace: 200ms}
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	sumPath := filepath.Join(dir, "s.json")
	cmd := exec.CommandContext(t.Context(), bin.Need(t), "run", "-q", "--summary-json", sumPath, path)
	cmd.Env = append(os.Environ(), "GOMEMLIMIT=24MiB")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitClientLimit {
		t.Fatalf("mcpchaos run under GOMEMLIMIT=24MiB: %v, want exit status %d\n%s", err, exitClientLimit, out)
	}
	raw, err := os.ReadFile(sumPath)
	if err != nil {
		t.Fatal(err)
	}
	var s report.Summary
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	c := s.ClientLimits
	if !c.Hit || c.Memory == 0 || c.Calls != c.Memory || s.Calls.ClientLimit != c.Memory {
		t.Errorf("client_limits %+v, calls.client_limit %d: want memory calls counted there", c, s.Calls.ClientLimit)
	}
	if s.Calls.OK == 0 {
		t.Errorf("no call ok: the calls sent before the limit should have ended ok\n%s", out)
	}
	for _, v := range s.Verdicts {
		if v.Status == report.StatusViolation {
			t.Errorf("verdict %s is a violation: %s", v.Area, v.Evidence)
		}
	}
	text := strings.Join(strings.Fields(string(out)), " ") // the summary wraps its lines
	for _, want := range []string{"Client limit", "memory limit (GOMEMLIMIT)", "raise GOMEMLIMIT",
		"FAIL (the client ran out of memory"} {
		if !strings.Contains(text, want) {
			t.Errorf("the text summary has no %q:\n%s", want, out)
		}
	}
}
