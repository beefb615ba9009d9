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
	code, stdout, stderr := runCLI(t, context.Background(), "run", "-q", "--duration", "1s", scenario)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
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
	if code, _, stderr = runCLI(t, context.Background(), "run", "-q", "--duration", "1s", scenario); code != 0 {
		t.Fatalf("with a bad %s: exit %d\n%s", envMemProfileAt, code, stderr)
	}
	if want := envMemProfileAt + `="soon": want a duration such as 30s; profiling at 30s`; !strings.Contains(stderr, want) {
		t.Errorf("stderr does not say %q:\n%s", want, stderr)
	}
}
