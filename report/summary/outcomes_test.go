package summary

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/results"
)

// callsNotOutcomes are the members of Calls that count something other
// than one outcome.
var callsNotOutcomes = []string{"total", "reissued", "retried"}

// TestCallsCoverEveryOutcome: results.OutcomeTable is the one list of
// outcomes; Calls has a counter for each (with the outcome's name as its
// JSON key, reached by ByOutcome) and no counter for an outcome the table
// does not have. An outcome added in one place only fails here.
func TestCallsCoverEveryOutcome(t *testing.T) {
	var c Calls
	v := reflect.ValueOf(&c).Elem()
	var fields []string
	for i := range v.NumField() {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		if slices.Contains(callsNotOutcomes, name) {
			continue
		}
		fields = append(fields, name)
		if p := c.ByOutcome(name); p != v.Field(i).Addr().Interface().(*int) {
			t.Errorf("Calls.%s (json %q): ByOutcome(%q) does not return it", v.Type().Field(i).Name, name, name)
		}
	}
	if !slices.Equal(fields, results.Outcomes) {
		t.Errorf("Calls counts %v, in this order; results.OutcomeTable has %v", fields, results.Outcomes)
	}
	if c.ByOutcome("no_such_outcome") != nil {
		t.Error("ByOutcome of an unknown outcome is not nil")
	}
}

// TestOutcomeDocs: the summary reference's calls.<outcome> rows say what
// results.OutcomeTable says each outcome means.
func TestOutcomeDocs(t *testing.T) {
	rows := map[string]string{}
	for _, r := range testutil.DocTableRows(t, summaryDoc, "| key | meaning |") {
		if name, ok := strings.CutPrefix(r.Key, "calls."); ok && len(r.Cells) == 2 {
			rows[name] = r.Cells[1]
		}
	}
	for _, o := range results.OutcomeTable {
		got, ok := rows[o.Name]
		switch {
		case !ok:
			t.Errorf("%s has no row | `calls.%s` | ... |", summaryDoc, o.Name)
		case got != o.Doc:
			t.Errorf("%s, calls.%s:\n  doc   %q\n  table %q", summaryDoc, o.Name, got, o.Doc)
		}
	}
}
