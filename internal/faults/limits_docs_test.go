package faults_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/faults"
)

// TestLimitsDocumented: docs/limits.md states the faults' own bounds.
func TestLimitsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/limits.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range []string{
		"| reissues | " + strconv.Itoa(faults.MaxReissues) + " |",
		"| oversize body | " + faults.MaxOversize.String() + " |",
	} {
		if !strings.Contains(string(doc), "\n"+row) {
			t.Errorf("docs/limits.md has no row starting %q", row)
		}
	}
}
