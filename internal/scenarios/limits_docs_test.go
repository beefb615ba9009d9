package scenarios

import (
	"os"
	"strings"
	"testing"
)

const limitsDoc = "../../docs/limits.md"

// TestLimitsDocumented: docs/limits.md has a row for every bound of
// Limits, with its value.
func TestLimitsDocumented(t *testing.T) {
	doc, err := os.ReadFile(limitsDoc)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range Limits {
		row := "| " + l.Name + " | " + l.Value
		if !strings.Contains(string(doc), "\n"+row) {
			t.Errorf("%s has no row starting %q", limitsDoc, row)
		}
	}
}
