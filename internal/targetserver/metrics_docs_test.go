package targetserver

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestMetricsDoc: the metrics table of docs/target.md names every metric
// the target registers (the process collector's process_* row aside), no
// more, each with its type.
func TestMetricsDoc(t *testing.T) {
	raw, err := os.ReadFile("../../docs/target.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	i := strings.Index(doc, "\n## Metrics\n")
	if i < 0 {
		t.Fatal("docs/target.md has no ## Metrics section")
	}
	row := regexp.MustCompile("(?m)^\\| `(mcpchaos_target_[a-z_]+)` \\| (gauge|counter) \\|")
	var got []string
	section, _, _ := strings.Cut(doc[i+1:], "\n### ")
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		got = append(got, m[1]+" "+m[2])
	}
	fams, err := newMetrics().registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, f := range fams {
		if name := f.GetName(); strings.HasPrefix(name, "mcpchaos_target_") {
			want = append(want, name+" "+strings.ToLower(f.GetType().String()))
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the metrics table of docs/target.md lists\n  %s\nthe target registers\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}
