package testutil

// The mcpchaos binary, for tests that need the real executable: a builtin
// stdio target runs `mcpchaos serve --stdio`, and the CLI tests run the
// command itself.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Build builds cmd/mcpchaos into dir and returns the binary's path. It is
// built without -race: it serves as a target, and a race-enabled binary
// sleeps a second at exit.
func Build(dir string) (string, error) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("build mcpchaos: no go command on PATH: %w", err)
	}
	bin := filepath.Join(dir, "mcpchaos")
	out, err := exec.Command(goTool, "build", "-o", bin, "github.com/mcpchaos/mcpchaos/cmd/mcpchaos").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build cmd/mcpchaos: %v\n%s", err, out)
	}
	return bin, nil
}

// Binary is the mcpchaos binary of one test package: built once by Main,
// shared by its tests.
type Binary struct {
	path string
	err  error
}

// Main builds the binary into a temporary directory, runs the package's
// tests and removes the directory. It returns the exit code for os.Exit.
func Main(m *testing.M, b *Binary) int {
	dir, err := os.MkdirTemp("", "mcpchaos-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer os.RemoveAll(dir)
	b.path, b.err = Build(dir)
	return m.Run()
}

// Need returns the binary's path, failing the test when it could not be
// built.
func (b *Binary) Need(t testing.TB) string {
	t.Helper()
	if b.err != nil {
		t.Fatalf("the mcpchaos binary could not be built: %v", b.err)
	}
	return b.path
}
