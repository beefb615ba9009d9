package testutil

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// update is -update, registered once for every test binary that imports
// testutil: go test ./PKG -update rewrites that package's golden files.
var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// Golden compares got with the golden file testdata/name, or rewrites the
// file when the tests run with -update.
func Golden(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run the test with -update to create it): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (run the test with -update and review the diff)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
