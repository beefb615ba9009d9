package html

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// runSections are the sections of every run, after its id.
var runSections = []string{"verdicts", "checks", "over-time", "calls", "tools", "errors", "scenario"}

func TestWriteTwoRuns(t *testing.T) {
	b, c := busy.run(t), calm.run(t)
	p := renderPage(t, Input{Runs: []Run{b, c}})
	checkSelfContained(t, p)
	for _, id := range []string{"overview", "latency"} {
		if p.byID(id) == nil {
			t.Errorf("no section %q", id)
		}
	}
	for i, r := range []Run{b, c} {
		id := fmt.Sprintf("run-%d", i+1)
		if n := p.byID(id); n == nil || !strings.Contains(text(n), "Run "+r.Name) {
			t.Errorf("no section %q headed with the run's name %q", id, r.Name)
		}
		for _, sec := range runSections {
			if p.byID(id+"-"+sec) == nil {
				t.Errorf("run %s has no section %q", r.Name, sec)
			}
		}
		if got, want := rowsIn(p.byID(id+"-verdicts")), len(r.Summary.Verdicts); got != want {
			t.Errorf("run %s: %d verdict rows, want %d", r.Name, got, want)
		}
		if got, want := rowsIn(p.byID(id+"-tools")), len(r.Summary.Tools); got != want {
			t.Errorf("run %s: %d tool rows, want %d", r.Name, got, want)
		}
		for _, v := range r.Summary.Verdicts {
			if !strings.Contains(text(p.byID(id+"-verdicts")), v.Evidence) {
				t.Errorf("run %s: the verdicts table lacks the %s evidence %q", r.Name, v.Area, v.Evidence)
			}
		}
		if scen := text(p.byID(id + "-scenario")); !strings.Contains(scen, "\nname: "+r.Summary.Scenario+"\n") {
			t.Errorf("run %s: the scenario section does not show the scenario:\n%s", r.Name, scen)
		}
	}
	if got, want := rowsIn(p.byID("run-1-checks")), len(b.Summary.Checks); got != want {
		t.Errorf("%d check rows, want %d", got, want)
	}
	checks := text(p.byID("run-1-checks"))
	for _, want := range []string{"p99(call) < 2s", "FAIL", "calls.tool_error == 0", report.FormatCheckValue(b.Summary.Checks[1])} {
		if !strings.Contains(checks, want) {
			t.Errorf("the checks table lacks %q:\n%s", want, checks)
		}
	}
	if errs := text(p.byID("run-1-errors")); !strings.Contains(errs, "throttled: HTTP 429") || !strings.Contains(errs, "stopped at step N of N: boom") {
		t.Errorf("the error set lacks its messages:\n%s", errs)
	}
	if meta := text(p.byID("run-1")); !strings.Contains(meta, "v0.0.0-test") || !strings.Contains(meta, "seed42") {
		t.Errorf("the run's description lacks the version or the seed:\n%.400s", meta)
	}

	labels := checkPlots(t, p)
	var want []string
	for _, s := range spectra {
		want = append(want, s.title)
	}
	want = append(want, "Call latency over time", "Outcomes per second (calls that ended in each second)",
		"Offered, achieved, ok and throttled calls per second", "Server work (probes) and client calls in flight")
	// calm has no probe samples: its work plot is a note.
	want = append(want, "Call latency over time", "Outcomes per second (calls that ended in each second)",
		"Offered, achieved, ok and throttled calls per second")
	if !slices.Equal(labels, want) {
		t.Errorf("plots:\n%q\nwant\n%q", labels, want)
	}
	notes := p.figureNotes()
	if len(notes) != 1 || !strings.Contains(text(notes[0]), "no probe samples") {
		t.Errorf("want one no-data note, for calm's probe samples; got %d", len(notes))
	}
	// Both runs are overlaid in each spectrum, their legends naming them.
	for _, name := range []string{"busy.jsonl", "calm.jsonl"} {
		if n := strings.Count(p.raw, name+" · "); n != len(spectra) {
			t.Errorf("%s is in %d spectrum legends, want %d", name, n, len(spectra))
		}
	}
}

// TestWriteMarksThrottlingOnset: the rates plot of a throttled run has the
// onset's marker and legend; a run that was never throttled has none.
func TestWriteMarksThrottlingOnset(t *testing.T) {
	b := busy.run(t)
	if b.Summary.Throttling.OnsetRate == 0 {
		t.Fatal("the busy fixture was not throttled")
	}
	p := renderPage(t, Input{Runs: []Run{b}})
	want := fmt.Sprintf("throttling onset at %.1f/s offered", b.Summary.Throttling.OnsetRate)
	if !strings.Contains(text(p.byID("run-1-over-time")), want) {
		t.Errorf("the rates plot has no legend %q", want)
	}
	c := renderPage(t, Input{Runs: []Run{calm.run(t)}})
	if strings.Contains(c.raw, "throttling onset") {
		t.Error("an unthrottled run has a throttling onset marker")
	}
}

// TestWriteEmptyRun: a run with no calls gives a page with every section
// and a note in place of each plot, not an error or an empty plot.
func TestWriteEmptyRun(t *testing.T) {
	agg := report.NewAggregator(report.Rules{})
	sum := agg.Summary(report.Meta{Scenario: "empty", Era: "2025-06-18", Transport: "stdio", Target: "node server.js"})
	p := renderPage(t, Input{Runs: []Run{{Name: "empty.jsonl", Summary: sum, Agg: agg}}})
	checkSelfContained(t, p)
	if svgs := p.byTag("svg"); len(svgs) != 0 {
		t.Errorf("an empty run has %d plots", len(svgs))
	}
	if notes := p.figureNotes(); len(notes) != len(spectra)+4 {
		t.Errorf("%d no-data notes, want %d: one per spectrum and 4 over time", len(notes), len(spectra)+4)
	}
	others := p.byClass("nodata")
	if len(others) != 5 {
		t.Errorf("%d empty-table notes, want 5: checks, calls, tools, errors, scenario", len(others))
	}
	for _, sec := range runSections {
		if p.byID("run-1-"+sec) == nil {
			t.Errorf("no section %q", sec)
		}
	}
}

// TestWriteEscapes: text from a server or a scenario (tool names, error
// messages, the scenario) is shown, never run.
func TestWriteEscapes(t *testing.T) {
	const evil = `<script>alert(1)</script><img src="https://example.com/x.png">`
	agg := report.NewAggregator(report.Rules{})
	r := &results.Record{Type: results.TypeCall, Tool: evil, Scheduled: fixtureStart, SentUs: 10, ResponseUs: 900, EndUs: 900,
		Outcome: results.ToolError, Error: evil}
	agg.Add(r)
	sum := agg.Summary(report.Meta{Scenario: evil, Era: "2026-07-28"})
	p := renderPage(t, Input{Runs: []Run{{Name: evil, Summary: sum, Agg: agg, Scenario: []byte(`{"name":` + fmt.Sprintf("%q", evil) + `}`)}}})
	checkSelfContained(t, p)
	if !strings.Contains(text(p.byID("run-1-tools")), evil) || !strings.Contains(text(p.byID("run-1-errors")), "<script>") {
		t.Error("the tool name or the error message is not shown as text")
	}
}

func TestWriteRejects(t *testing.T) {
	agg := report.NewAggregator(report.Rules{})
	tests := []struct {
		name string
		in   Input
		want string
	}{
		{"no run", Input{}, "no run to render"},
		{"no summary", Input{Runs: []Run{{Name: "a.jsonl", Agg: agg}}}, `run 1 ("a.jsonl") has no summary`},
		{"no aggregator", Input{Runs: []Run{{Name: "b.jsonl", Summary: agg.Summary(report.Meta{})}}}, `run 1 ("b.jsonl") has no summary or no aggregator`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Write(&strings.Builder{}, tt.in)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Write = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// svgBody matches a plot's drawing, which the golden file leaves out:
// gonum's output is checked by the structure tests, the page around it
// here.
var svgBody = regexp.MustCompile(`(?s)(<svg[^>]*>).*?</svg>`)

// TestGoldenPage pins the page around the plots: tables, notes, headings,
// style.
func TestGoldenPage(t *testing.T) {
	var b strings.Builder
	if err := Write(&b, Input{Runs: []Run{busy.run(t)}}); err != nil {
		t.Fatal(err)
	}
	got := svgBody.ReplaceAllString(b.String(), "${1}…</svg>")
	testutil.Golden(t, "busy.html.golden", []byte(got))
}

// TestWriteDegenerate: data at the edges — every value zero, one call, a
// long sparse run, samples without probe values — draws or explains
// itself, never fails or panics.
func TestWriteDegenerate(t *testing.T) {
	rec := func(at time.Duration, mod func(r *results.Record)) *results.Record {
		r := &results.Record{Type: results.TypeCall, Tool: "echo", Scheduled: fixtureStart.Add(at), SentUs: 5,
			ResponseUs: 5, EndUs: 5, Outcome: results.OK}
		if mod != nil {
			mod(r)
		}
		return r
	}
	tests := []struct {
		name      string
		recs      []*results.Record
		samples   []results.Sample
		wantPlots int
		wantNote  string
	}{
		{"every value zero", []*results.Record{rec(0, func(r *results.Record) {
			r.FirstProgUs, r.Progress = 5, &results.Progress{Count: 1, Last: 1}
		}), rec(0, func(r *results.Record) {
			r.Outcome, r.ResponseUs, r.DeadlineUs, r.TimeoutErrUs, r.CancelUs = results.TimeoutCap, 0, 100, 0, 100
		})}, nil, len(spectra) + 3, "no probe samples"},
		{"one call", []*results.Record{rec(0, nil)}, nil, 2 + 3, "no progress notification arrived"},
		{"a long sparse run", func() []*results.Record {
			var rs []*results.Record
			for i := range 600 {
				rs = append(rs, rec(time.Duration(i)*time.Minute, nil))
			}
			return rs
		}(), nil, 2 + 3, "no timeout fired"},
		{"samples without probe values", []*results.Record{rec(0, nil)},
			[]results.Sample{{Type: results.TypeSample, T: fixtureStart, ClientInFlight: 3}}, 2 + 3, "no probe values in the samples"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			agg := report.NewAggregator(report.Rules{})
			for _, r := range tt.recs {
				agg.Add(r)
			}
			sum := agg.Summary(report.Meta{Scenario: tt.name, Era: "2026-07-28"})
			p := renderPage(t, Input{Runs: []Run{{Name: "x.jsonl", Summary: sum, Agg: agg, Samples: tt.samples}}})
			checkSelfContained(t, p)
			if got := len(checkPlots(t, p)); got != tt.wantPlots {
				t.Errorf("%d plots, want %d", got, tt.wantPlots)
			}
			if !strings.Contains(p.raw, tt.wantNote) {
				t.Errorf("no note %q", tt.wantNote)
			}
		})
	}
}

// TestWriteScenarioYAML: the scenario as run is shown in the keys of the
// scenario file (orphans: grace:), not the Go field names the results
// header's JSON has (Orphans, Grace), with its secrets still masked; a
// config that cannot be read is shown as it is.
func TestWriteScenarioYAML(t *testing.T) {
	tests := []struct {
		name     string
		config   []byte
		want     []string
		wantNot  []string
		wantNote bool
	}{
		{"echoed scenario", fixtureScenario(t, "yaml"),
			[]string{"name: yaml\n", "orphans:\n  grace: 300ms\n", "max_in_flight: 10000\n", "Authorization: \"[redacted]\"", "fail_on_violation: true\n"},
			[]string{"Orphans", "Grace", "FailOnViolation", "MaxInFlight", `"Pos"`, fixtureSecret}, false},
		{"not an object", []byte(`["a", 1]`), []string{"[\n  \"a\",\n  1\n]"}, nil, false},
		{"not json", []byte(`{"Name": `), []string{`{"Name": `}, nil, false},
		{"not recorded", nil, []string{"does not record the scenario"}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := calm.run(t)
			r.Scenario = tt.config
			p := renderPage(t, Input{Runs: []Run{r}})
			sec := text(p.byID("run-1-scenario"))
			for _, w := range tt.want {
				if !strings.Contains(sec, w) {
					t.Errorf("the scenario section lacks %q:\n%s", w, sec)
				}
			}
			for _, w := range tt.wantNot {
				if strings.Contains(p.raw, w) {
					t.Errorf("the page holds %q:\n%s", w, sec)
				}
			}
			if got := len(parsedPage{root: p.byID("run-1-scenario")}.byClass("nodata")) > 0; got != tt.wantNote {
				t.Errorf("a no-scenario note: %v, want %v", got, tt.wantNote)
			}
		})
	}
}
