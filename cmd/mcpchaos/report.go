package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mcpchaos/mcpchaos/internal/termsafe"
	"github.com/mcpchaos/mcpchaos/report/merge"
	"github.com/mcpchaos/mcpchaos/results"
)

// reportFormats are report's --format values.
var reportFormats = []string{"text", "json", "html", "hgrm", "hlog", "vegeta", "junit"}

func reportCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var format, output string
	var same bool
	var ex exportFlags
	fs := newFlagSet("report", stdout,
		"usage: mcpchaos report [flags] RESULTS...",
		"",
		"Reads one or more results files (plain or .gz) written by mcpchaos run --output, merges",
		"them (counts add, histograms merge, seconds align on the wall clock), evaluates the first",
		"file's checks and verdicts again on the merged data and renders the result.",
		"Exit status: 0 pass; 1 a check failed or a verdict is a violation; 2 bad input.",
		"")
	fs.StringVar(&format, "format", "text", "`FORMAT`: "+strings.Join(reportFormats, ", "))
	fs.StringVarP(&output, "output", "o", "-", "write to `FILE` (- for standard output; hgrm: FILE.NAME.hgrm per histogram)")
	fs.StringVar(&ex.vegetaFormat, "vegeta-format", "", "vegeta encoding: gob, json or csv (default: from the -o extension, else gob)")
	fs.BoolVar(&same, "same-scenario", false, "refuse files that ran another scenario, seed or configuration than the first (default: a note on stderr)")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "mcpchaos report: want at least one results file (see mcpchaos report --help)")
		return exitUsage
	}
	if !slices.Contains(reportFormats, format) {
		fmt.Fprintf(stderr, "mcpchaos report: --format %q: want one of %s\n", format, strings.Join(reportFormats, ", "))
		return exitUsage
	}
	if output == "" {
		output = "-"
	}
	*ex.field(format) = output
	var inputs []fileUse
	for _, path := range fs.Args() {
		inputs = append(inputs, fileUse{"the results file", path})
	}
	if err := checkOverwrites(inputs, exportFiles(&ex, "--output")); err != nil {
		return fail(stderr, "report", err)
	}
	outs := newOutputs(ctx, stdout)
	// The attack name of vegeta results is the first file's scenario, known
	// only once read: outputs are still opened before any file is read.
	exp, err := openExports(outs, &ex, "")
	if err != nil {
		outs.abort()
		return fail(stderr, "report", err)
	}
	m, err := merge.Merge(ctx, fs.Args(), merge.MergeOptions{OnRecord: exp.record, SameScenario: same,
		NoSeconds: exp.html == nil && exp.hlog == nil,
		OnSample:  func(s *results.Sample) error { exp.sample(s); return nil },
		OnHeader: func(i int, h *results.Header) error {
			if i == 0 && exp.vegeta != nil {
				exp.vegeta.SetAttack(h.Scenario)
			}
			if i == 0 && exp.html != nil {
				exp.html.name, exp.html.scenario = h.Scenario, h.Config
			}
			return nil
		}})
	if err == nil && exp.html != nil && fs.NArg() > 1 {
		exp.html.name = fmt.Sprintf("merged (%d files)", fs.NArg())
		err = exp.html.addFileRuns(ctx, fs.Args())
	}
	if err != nil {
		outs.abort()
		return fail(stderr, "report", err)
	}
	for _, n := range m.Notes {
		fmt.Fprintf(stderr, "mcpchaos report: note: %s\n", termsafe.Escape(n))
	}
	s := m.Summary()
	if err := errors.Join(exp.write(s, m.Agg), outs.closeAll()); err != nil {
		return fail(stderr, "report", err)
	}
	if !s.Pass {
		return failCode(s)
	}
	return exitOK
}

// field returns the path of a --format's rendering.
func (e *exportFlags) field(format string) *string {
	switch format {
	case "json":
		return &e.summaryJSON
	case "junit":
		return &e.junit
	case "hgrm":
		return &e.hgrm
	case "hlog":
		return &e.hlog
	case "vegeta":
		return &e.vegeta
	case "html":
		return &e.html
	}
	return &e.text
}
