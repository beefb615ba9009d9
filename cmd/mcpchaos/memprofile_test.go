package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunMemProfile: with MCPCHAOS_MEMPROFILE set, a run writes a heap
// profile (gzipped protobuf, as go tool pprof reads), its goroutines and
// its memory statistics; a bad MCPCHAOS_MEMPROFILE_AT is said and the
// default taken, and the run is otherwise the same.
func TestRunMemProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mem.pprof")
	t.Setenv(envMemProfile, path)
	t.Setenv(envMemProfileAt, "0s")
	scenario := writeScenario(t, "echo.yaml", echoScenario)
	stderr := diagnosedRun(t, scenario)
	if !strings.Contains(stderr, "memory profile written to "+path) {
		t.Errorf("stderr does not say where the profile went:\n%s", stderr)
	}
	heap, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(heap) < 2 || heap[0] != 0x1f || heap[1] != 0x8b {
		t.Errorf("the heap profile is not gzipped (%d bytes)", len(heap))
	}
	for suffix, want := range map[string]string{".goroutines": "goroutine profile: total ", ".memstats": "goroutines "} {
		b, err := os.ReadFile(path + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(b), want) {
			t.Errorf("%s begins %.40q, want %q", suffix, b, want)
		}
	}

	t.Setenv(envMemProfileAt, "soon")
	stderr = diagnosedRun(t, scenario)
	if want := envMemProfileAt + `="soon": want a duration such as 30s; profiling at 30s`; !strings.Contains(stderr, want) {
		t.Errorf("stderr does not say %q:\n%s", want, stderr)
	}
}

// diagnosedRun runs scenario for 1 s, as a diagnosis's tests do (with
// its environment set), and returns the run's stderr; a run that does not
// exit 0 ends the test: a diagnosis never fails the run it watches.
func diagnosedRun(t *testing.T, scenario string) (stderr string) {
	t.Helper()
	code, stdout, stderr := runCLI(t, context.Background(), "run", "-q", "--duration", "1s", scenario)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	return stderr
}
