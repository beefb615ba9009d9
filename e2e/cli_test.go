package e2e

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// cliScenario is a one-second run of cheap calls against the built-in
// target, with the given checks.
const cliScenario = `name: cli
seed: 1
target:
  builtin: {transport: http}
load: {rate: 20/1s, duration: 1s}
calls:
  - {tool: echo, arguments: {text: hi}}
orphans: {grace: 100ms}
checks:
`

// runCLI runs `mcpchaos run FILE --quiet` with the given checks appended
// to cliScenario and returns the exit code, stdout and stderr.
func runCLI(t *testing.T, checks ...string) (int, string, string, string) {
	t.Helper()
	exe := bin.Need(t)
	path := filepath.Join(t.TempDir(), "cli.yaml")
	body := cliScenario
	for _, c := range checks {
		body += "  - " + c + "\n"
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "run", path, "--quiet")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("mcpchaos run: %v", err)
	}
	return code, stdout.String(), stderr.String(), path
}

// TestCLIChecksAndExitCodes drives the real binary: a failing check exits
// 1 and prints FAIL with the value, passing checks exit 0, a check on an
// area the run never exercised fails with the reason, and a check
// naming an unknown key exits 2 before any load, naming its line:column.
func TestCLIChecksAndExitCodes(t *testing.T) {
	t.Run("failing-check", func(t *testing.T) {
		t.Parallel()
		code, out, errOut, _ := runCLI(t, "calls.ok > 0", "calls.total < 3")
		if code != 1 {
			t.Fatalf("exit status %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
		// 20 calls: the value printed is what the check compared.
		if !regexp.MustCompile(`FAIL\s+calls\.total < 3\s+20\b`).MatchString(out) {
			t.Errorf("stdout does not show the failed check with its value 20:\n%s", out)
		}
		if !regexp.MustCompile(`PASS\s+calls\.ok > 0\s+20\b`).MatchString(out) {
			t.Errorf("stdout does not show the passing check with its value:\n%s", out)
		}
		if !strings.Contains(out, "FAIL (1 of 2 checks failed)") {
			t.Errorf("stdout does not end in the failed result:\n%s", out)
		}
	})
	t.Run("passing-checks", func(t *testing.T) {
		t.Parallel()
		code, out, errOut, _ := runCLI(t, "calls.ok == 20", "progress.violations.total == 0", "p99(call) < 2s", "cancellation.cancels == 0")
		if code != 0 {
			t.Fatalf("exit status %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
		if !strings.Contains(out, "PASS (4 checks)") || strings.Contains(out, "FAIL") {
			t.Errorf("stdout is not a clean pass:\n%s", out)
		}
	})
	// Nothing is cancelled: a check on leftover work describes nothing,
	// and fails saying so rather than pass on a 0.
	t.Run("unexercised-check", func(t *testing.T) {
		t.Parallel()
		code, out, errOut, _ := runCLI(t, "calls.ok == 20", "cancellation.orphaned == 0")
		if code != 1 {
			t.Fatalf("exit status %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
		if !regexp.MustCompile(`FAIL\s+cancellation\.orphaned == 0\s+\(no call was cancelled or disconnected`).MatchString(out) ||
			!strings.Contains(out, "FAIL (1 of 2 checks failed)") {
			t.Errorf("stdout does not fail the check for want of a cancel:\n%s", out)
		}
	})
	t.Run("unknown-key", func(t *testing.T) {
		t.Parallel()
		code, out, errOut, path := runCLI(t, "calls.ok > 0", "cancellation.orphans == 0")
		if code != 2 {
			t.Fatalf("exit status %d, want 2\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
		// The bad check is the second item under checks: line 11, and its
		// text starts at column 5 ("  - " before it).
		want := path + ":11:5:"
		if !strings.Contains(errOut, want) || !strings.Contains(errOut, "cancellation.orphans") {
			t.Errorf("stderr %q does not name %s and the key", errOut, want)
		}
		if strings.Contains(out, "Calls") {
			t.Errorf("the run started despite the bad check:\n%s", out)
		}
	})
}
