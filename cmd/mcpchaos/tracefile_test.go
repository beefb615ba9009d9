package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunTrace: MCPCHAOS_TRACE=FILE leaves a runtime execution trace of
// the run in FILE and says so; a file that cannot be made is named on
// stderr and the run goes on without a trace.
func TestRunTrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.trace")
	t.Setenv(envTrace, path)
	scenario := writeScenario(t, "echo.yaml", echoScenario)
	stderr := diagnosedRun(t, scenario)
	if !strings.Contains(stderr, "execution trace written to "+path) {
		t.Errorf("stderr does not say where the trace went:\n%s", stderr)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "go 1.") || len(b) < 1024 {
		t.Errorf("the trace begins %.12q and has %d bytes; want a Go execution trace of the run", b, len(b))
	}

	bad := filepath.Join(t.TempDir(), "no-such-dir", "run.trace")
	t.Setenv(envTrace, bad)
	stderr = diagnosedRun(t, scenario)
	if want := "mcpchaos run: " + envTrace + ": open " + bad; !strings.Contains(stderr, want) {
		t.Errorf("stderr does not say %q:\n%s", want, stderr)
	}
}
