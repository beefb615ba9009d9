package archtest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// maxFileLines is the longest a Go file may be (DESIGN.md's style: files
// under about 400 lines): a longer one holds more than one job, and splits
// along them into files named for each.
const maxFileLines = 400

// TestFileLength: no non-generated Go file of the module, tests included,
// is over maxFileLines lines.
func TestFileLength(t *testing.T) {
	root, _ := moduleRoot(t)
	n := 0
	err := walkSource(root, true, func(p, _ string) error {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		if generated.Match(b) {
			return nil
		}
		if lines := bytes.Count(b, []byte("\n")); lines > maxFileLines {
			rel, _ := filepath.Rel(root, p)
			t.Errorf("%s is %d lines long, over %d: split it along its jobs", rel, lines, maxFileLines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Fatalf("found %d Go files under %s; is the module root right?", n, root)
	}
}
