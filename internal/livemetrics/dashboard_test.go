package livemetrics

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/results"
)

// dashboard is the part of the Grafana dashboard the test reads.
type dashboard struct {
	Title  string `json:"title"`
	Panels []struct {
		Title   string `json:"title"`
		Targets []struct {
			Expr string `json:"expr"`
		} `json:"targets"`
	} `json:"panels"`
}

// TestDashboard: every metric the Grafana dashboard queries is one this
// package serves, and every metric it serves is on the dashboard.
func TestDashboard(t *testing.T) {
	b, err := os.ReadFile("../../deploy/grafana/mcpchaos.json")
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("the dashboard is not JSON: %v", err)
	}
	m := New("s", "0/1")
	// One of each, so that every family is gathered.
	m.Record(&results.Record{Tool: "echo", Outcome: results.OK, SentUs: 10, ResponseUs: 20,
		Faults: []results.Fault{{Kind: "cancel"}}})
	m.Tick(1, 0, 1, 1)
	m.Sample(&results.Sample{Probes: map[string]float64{"p": 1}})
	fams, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	for _, f := range fams {
		served[f.GetName()] = true
	}
	used := map[string]bool{}
	name := regexp.MustCompile(`mcpchaos_[a-z_]+`)
	for _, p := range d.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			for _, n := range name.FindAllString(tg.Expr, -1) {
				for _, suffix := range []string{"_bucket", "_sum", "_count"} {
					if base, ok := strings.CutSuffix(n, suffix); ok && served[base] {
						n = base
					}
				}
				if !served[n] {
					t.Errorf("panel %q queries %s, which mcpchaos does not serve", p.Title, n)
				}
				used[n] = true
			}
		}
	}
	for n := range served {
		if !used[n] {
			t.Errorf("%s is served but on no panel of the dashboard", n)
		}
	}
}
