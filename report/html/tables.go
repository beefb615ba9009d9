package html

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// The tables of the page, built from the summary: the same numbers as the
// text summary, formatted the same way.

// overviewRow is one run in the table at the top of the page.
type overviewRow struct {
	Name, Scenario, Era, Started, Duration string
	Seed                                   int64
	Calls, OK                              int
	Offered, OKRate                        string
	P99                                    string
	Pass                                   bool
	Result                                 string
	Verdicts                               []report.Verdict
}

func overview(r Run) overviewRow {
	s := r.Summary
	return overviewRow{
		Name: r.Name, Scenario: s.Scenario, Era: s.Era, Started: fmtTime(s.Started),
		Duration: report.FormatMs(s.DurationS * 1000), Seed: s.Seed,
		Calls: s.Calls.Total, OK: s.Calls.OK,
		Offered: report.FormatRate(s.Rate.Offered), OKRate: report.FormatRate(s.Rate.OK),
		P99:  latencyOrDash(s.Latency.Call.Count, s.Latency.Call.P99),
		Pass: s.Pass, Result: s.Result(), Verdicts: s.Verdicts,
	}
}

// metaRow is one line of a run's description.
type metaRow struct{ Name, Value string }

func meta(r Run) []metaRow {
	s := r.Summary
	version := r.Version
	if version == "" {
		version = "unknown"
	}
	rows := []metaRow{
		{"scenario", s.Scenario},
		{"seed", strconv.FormatInt(s.Seed, 10)},
		{"mcpchaos version", version},
		{"era", s.Era},
		{"target", strings.TrimSpace(s.Transport + " " + s.Target)},
		{"server", s.Server},
		{"started", fmtTime(s.Started)},
		{"duration", report.FormatMs(s.DurationS * 1000)},
		{"rate", fmt.Sprintf("offered %s, achieved %s, ok %s", report.FormatRate(s.Rate.Offered), report.FormatRate(s.Rate.Achieved), report.FormatRate(s.Rate.OK))},
		{"result", s.Result()},
	}
	if s.Interrupted {
		rows = append(rows, metaRow{"interrupted", "yes: the run was stopped before its end"})
	}
	for _, a := range s.ClientLimits.Advice {
		rows = append(rows, metaRow{"client limit", a})
	}
	return slices.DeleteFunc(rows, func(m metaRow) bool { return m.Value == "" })
}

// checkRow is one evaluated check.
type checkRow struct {
	Check, Value string
	Pass         bool
}

func checks(s *report.Summary) []checkRow {
	rows := make([]checkRow, 0, len(s.Checks))
	for _, c := range s.Checks {
		v := report.FormatCheckValue(c)
		if c.Reason != "" {
			v = c.Reason
		}
		rows = append(rows, checkRow{Check: c.Check, Value: v, Pass: c.Pass})
	}
	return rows
}

// countRow is a name with a count.
type countRow struct {
	Name  string
	Count int
}

// outcomeCounts lists the outcomes that occurred, in report order.
func outcomeCounts(s *report.Summary) []countRow {
	var rows []countRow
	for _, o := range results.Outcomes {
		if n := s.Calls.ByOutcome(o); n != nil && *n > 0 {
			rows = append(rows, countRow{o, *n})
		}
	}
	return rows
}

// toolRow is one tool of the per-tool table.
type toolRow struct {
	Tool      string
	Calls, OK int
	P50, P99  string
	Other     string
}

func tools(s *report.Summary) []toolRow {
	names := make([]string, 0, len(s.Tools))
	for n := range s.Tools {
		names = append(names, n)
	}
	slices.Sort(names)
	rows := make([]toolRow, 0, len(names))
	for _, n := range names {
		ts := s.Tools[n]
		row := toolRow{Tool: n, Calls: ts.Calls, OK: ts.ByOutcome[results.OK], P50: "-", P99: "-",
			Other: strings.Join(ts.OtherOutcomes(), ", ")}
		if ts.LatencyMs != (report.ToolLatency{}) { // as the text summary: zero means no answer
			row.P50, row.P99 = report.FormatMs(ts.LatencyMs.P50), report.FormatMs(ts.LatencyMs.P99)
		}
		rows = append(rows, row)
	}
	return rows
}

// latencyOrDash formats a latency, or "-" when nothing was measured.
func latencyOrDash(count int64, ms float64) string {
	if count == 0 {
		return "-"
	}
	return report.FormatMs(ms)
}
