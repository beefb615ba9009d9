package html

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// Input is what the page shows: one run, or several (merged files, or
// runs to compare), whose latency spectra are overlaid.
type Input struct {
	Runs []Run
}

// Run is one run: its summary and the Aggregator the summary was built
// from (histograms and seconds), the probe samples of its results file, the
// scenario as run and the version of the tool that ran it.
type Run struct {
	// Name labels the run in overlays and headings (a file name).
	Name    string
	Summary *report.Summary
	Agg     *report.Aggregator
	Samples []results.Sample
	// Scenario is the scenario as run (the results header's config),
	// already redacted by the caller. It is shown as YAML in the scenario
	// file's keys; nil: not recorded.
	Scenario json.RawMessage
	Version  string
}

//go:embed page.tmpl
var pageTemplate string

//go:embed page.css
var pageCSS string

var page = template.Must(template.New("page").Funcs(template.FuncMap{"statusClass": statusClass}).Parse(pageTemplate))

// statusClass styles a verdict's status: pass, warning and violation have
// their own colours; the rest (not exercised, legacy, ...) are
// informational. A throttled verdict is a warning to the eye.
func statusClass(status string) string {
	switch status {
	case report.StatusPass, report.StatusViolation, report.StatusWarning:
		return status
	case report.StatusThrottled:
		return "warning"
	}
	return "info"
}

// Write renders the runs as one self-contained HTML page.
func Write(w io.Writer, in Input) error {
	pg, err := build(in)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := page.Execute(&b, pg); err != nil {
		return fmt.Errorf("render html report: %w", err)
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("write html report: %w", err)
	}
	return nil
}

// pageView is what the template reads.
type pageView struct {
	Title    string
	CSS      template.CSS
	Overview []overviewRow
	Spectra  []Figure
	Runs     []runView
	Multi    bool
}

// runView is one run's section.
type runView struct {
	ID, Heading string
	Meta        []metaRow
	Pass        bool
	Verdicts    []report.Verdict
	Checks      []checkRow
	Outcomes    []countRow
	OverTime    []Figure
	Tools       []toolRow
	Errors      report.Errors
	Areas       []areaView
	Scenario    string
}

func build(in Input) (*pageView, error) {
	if len(in.Runs) == 0 {
		return nil, errors.New("html report: no run to render")
	}
	for i, r := range in.Runs {
		if r.Summary == nil || r.Agg == nil {
			return nil, fmt.Errorf("html report: run %d (%q) has no summary or no aggregator", i+1, r.Name)
		}
	}
	pg := &pageView{CSS: template.CSS(pageCSS), Multi: len(in.Runs) > 1} // our own file
	pg.Title = "mcpchaos report: " + in.Runs[0].Summary.Scenario
	if pg.Multi {
		pg.Title = fmt.Sprintf("mcpchaos report: %d runs", len(in.Runs))
	}
	for _, s := range spectra {
		fig, err := spectrumFigure(s.name, s.title, s.none, in.Runs)
		if err != nil {
			return nil, err
		}
		pg.Spectra = append(pg.Spectra, fig)
	}
	for i, r := range in.Runs {
		pg.Overview = append(pg.Overview, overview(r))
		rv, err := buildRun(i, r, pg.Multi)
		if err != nil {
			return nil, fmt.Errorf("html report: run %q: %w", r.Name, err)
		}
		pg.Runs = append(pg.Runs, rv)
	}
	return pg, nil
}

func buildRun(i int, r Run, multi bool) (runView, error) {
	s := r.Summary
	rv := runView{
		ID:       fmt.Sprintf("run-%d", i+1),
		Heading:  "The run",
		Meta:     meta(r),
		Pass:     s.Pass,
		Verdicts: s.Verdicts,
		Checks:   checks(s),
		Outcomes: outcomeCounts(s),
		Tools:    tools(s),
		Errors:   s.Errors,
		Areas:    areas(s),
		Scenario: scenarioText(r.Scenario),
	}
	if multi {
		rv.Heading = "Run " + r.Name
	}
	tl := newTimeline(r.Agg.Seconds())
	origin := tl.origin
	if origin.IsZero() {
		origin = s.Started
	}
	for _, draw := range []func() (Figure, error){
		func() (Figure, error) { return latencyFigure(tl) },
		func() (Figure, error) { return outcomesFigure(tl) },
		func() (Figure, error) { return ratesFigure(tl, s.Throttling, s.Limits) },
		func() (Figure, error) { return workFigure(r.Samples, origin) },
	} {
		fig, err := draw()
		if err != nil {
			return runView{}, err
		}
		rv.OverTime = append(rv.OverTime, fig)
	}
	return rv, nil
}

// scenarioText writes the scenario in the keys of a scenario file, as
// YAML (scenarios.EchoYAML); a config it cannot read is shown as indented
// JSON, or as it is.
func scenarioText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	if y, err := scenarios.EchoYAML(raw); err == nil {
		return strings.TrimSuffix(string(y), "\n")
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw)
	}
	return b.String()
}

// fmtTime formats a run's start time; the zero time is unknown.
func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "unknown"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}
