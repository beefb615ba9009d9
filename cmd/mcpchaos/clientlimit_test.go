//go:build linux

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

// TestRunOutOfFileDescriptors runs the real binary under `ulimit -n 128`
// (set by sh before it execs mcpchaos: both the soft and the hard limit,
// so the Go runtime cannot raise it) with about 300 calls of 1 s in
// flight against the built-in target: most calls cannot get a socket. They
// must end client_limit, not transport_error; no verdict may blame the
// server; the summary must name the limit and how to raise it; and the
// run must fail with exit status 3.
func TestRunOutOfFileDescriptors(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the real binary with 900 calls")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "emfile.yaml")
	src := `name: emfile
target: {builtin: {transport: http}}
load: {rate: 300/1s, duration: 3s, max_in_flight: 2000}
timeouts: {idle: 10s, max: 20s}
calls: [{tool: slow_task, arguments: {steps: 1, step_ms: 1000}}]
orphans: {grace: 200ms}
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	sumPath := filepath.Join(dir, "s.json")
	cmd := exec.CommandContext(t.Context(), "sh", "-c", `ulimit -n 128 && exec "$0" "$@"`,
		bin.Need(t), "run", "-q", "--summary-json", sumPath, path)
	s, out := runAtClientLimit(t, cmd, sumPath, "fds", func(c report.ClientLimits) int { return c.FDs })
	if s.Calls.TransportError != 0 {
		t.Errorf("%d calls transport_error: a limit of our own counted against the server\n%s", s.Calls.TransportError, out)
	}
	wantText(t, out, "Client limit", "ulimit -n", "too many open files", "FAIL (the client ran out of file descriptors")
}

// runAtClientLimit runs cmd (`mcpchaos run` with --summary-json sumPath),
// which must hit the client limit named (exit status 3); the summary must
// count the limit's calls (of counts them) as every client_limit call,
// must not pass, and no verdict may be a violation. It returns the
// summary and the command's output.
func runAtClientLimit(t *testing.T, cmd *exec.Cmd, sumPath, limit string, of func(report.ClientLimits) int) (report.Summary, string) {
	t.Helper()
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitClientLimit {
		t.Fatalf("%s: %v, want exit status %d\n%s", cmd, err, exitClientLimit, out)
	}
	raw, err := os.ReadFile(sumPath)
	if err != nil {
		t.Fatal(err)
	}
	var s report.Summary
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	if c := s.ClientLimits; !c.Hit || of(c) == 0 || c.Calls != of(c) || s.Calls.ClientLimit != of(c) {
		t.Errorf("client_limits %+v, calls.client_limit %d: want %s calls counted there", c, s.Calls.ClientLimit, limit)
	}
	if s.Pass {
		t.Error("the summary passed")
	}
	for _, v := range s.Verdicts {
		if v.Status == report.StatusViolation {
			t.Errorf("verdict %s is a violation: %s", v.Area, v.Evidence)
		}
	}
	return s, string(out)
}

// wantText checks that a run's text summary says each of want, its
// wrapped lines joined.
func wantText(t *testing.T, out string, want ...string) {
	t.Helper()
	text := strings.Join(strings.Fields(out), " ")
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("the text summary has no %q:\n%s", w, out)
		}
	}
}
