package knobs

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Where the knob tables are documented: the scenario keys with the
// scenario reference, the serve flags with the built-in target.
const (
	scenarioDoc = "../../../docs/scenarios.md"
	targetDoc   = "../../../docs/target.md"
)

// markdownRow is the docs row of a knob of target.builtin.
func markdownRow(k Knob) string {
	def := "none"
	if d := k.Default(); d != "" {
		def = "`" + d + "`"
	}
	return "| `" + k.Name + "` | " + k.Type() + " | " + def + " | " + k.Doc + " |"
}

// tableAfter returns the rows of the first Markdown table after heading.
func tableAfter(t *testing.T, file, heading string) []string {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	i := strings.Index(doc, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("%s has no heading %q", file, heading)
	}
	var rows []string
	for _, line := range strings.Split(doc[i+len(heading)+2:], "\n") {
		if strings.HasPrefix(line, "|") {
			rows = append(rows, line)
		} else if len(rows) > 0 {
			break
		}
	}
	if len(rows) < 2 {
		t.Fatalf("no table after %q in %s", heading, file)
	}
	return rows[2:] // past the header and the |---| line
}

// TestReadmeScenarioKeys: the scenario reference's table of target.builtin keys is the
// table, row for row (transport is the decoder's own key). On a mismatch
// the message holds the rows to paste.
func TestReadmeScenarioKeys(t *testing.T) {
	rows := tableAfter(t, scenarioDoc, "### `target.builtin`")
	var got []string
	for _, r := range rows {
		if !strings.HasPrefix(r, "| `transport` |") {
			got = append(got, r)
		}
	}
	var want []string
	for _, k := range Table {
		if !k.NotInFile {
			want = append(want, markdownRow(k))
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the knob rows of %s (### `target.builtin`) differ from knobs.Table; they should read:\n%s", scenarioDoc, strings.Join(want, "\n"))
	}
}

// TestReadmeFlags: the built-in target's table of serve flags has one row per knob,
// each naming the flag and the scenario key.
func TestReadmeFlags(t *testing.T) {
	rows := tableAfter(t, targetDoc, "## Knobs")
	cell := regexp.MustCompile("^\\| `--([a-z0-9-]+)[^`]*` \\| `([a-z0-9_]+)")
	var got, want []string
	for _, r := range rows {
		m := cell.FindStringSubmatch(r)
		if m == nil {
			t.Errorf("row %q does not start with a flag and a scenario key", r)
			continue
		}
		got = append(got, m[1]+" "+m[2])
	}
	for _, k := range Table {
		want = append(want, k.Flag()+" "+k.Name)
	}
	slices.Sort(got)
	slices.Sort(want)
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("the flags of %s (## Knobs) are\n  %s\nwant (knobs.Table)\n  %s", targetDoc, strings.Join(got, ", "), strings.Join(want, ", "))
	}
}
