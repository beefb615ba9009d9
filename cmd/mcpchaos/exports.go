package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/report/export"
	reporttext "github.com/mcpchaos/mcpchaos/report/text"
	"github.com/mcpchaos/mcpchaos/results"
)

// exportFlags name the renderings of a run to write, each to a path ("-"
// is standard output; "" not written). run takes them as flags; report
// sets the one its --format names.
type exportFlags struct {
	text, summaryJSON, junit, hgrm, hlog, vegeta string
	// vegetaFormat is gob, json or csv; "" infers it from the vegeta path.
	vegetaFormat string
	// html is the self-contained HTML report (htmlexport.go).
	html string
}

// defineRunFlags adds run's output flags.
func (e *exportFlags) defineRunFlags(fs *pflag.FlagSet) {
	fs.StringVar(&e.summaryJSON, "summary-json", "", "write the JSON summary to `FILE` (- for standard output)")
	fs.StringVar(&e.junit, "junit", "", "write the checks and verdicts as JUnit XML to `FILE`")
	fs.StringVar(&e.hgrm, "hgrm", "", "write each latency histogram's percentile distribution (ms) to `FILE` with .NAME.hgrm for .hgrm (out.hgrm: out.call.hgrm, ...)")
	fs.StringVar(&e.hlog, "hlog", "", "write an HdrHistogram interval log (one interval per second per histogram) to `FILE`")
	fs.StringVar(&e.vegeta, "vegeta", "", "write one vegeta result per call to `FILE` (vegeta report / vegeta plot read it)")
	fs.StringVar(&e.html, "html", "", "write the HTML report (plots, verdicts, checks; one self-contained file) to `FILE`")
	fs.StringVar(&e.vegetaFormat, "vegeta-format", "", "vegeta encoding: gob, json or csv (default: from the --vegeta extension, .json/.csv, else gob)")
}

// exports are the opened renderings.
type exports struct {
	text, summaryJSON, junit, hlog io.WriteCloser
	hgrm                           *hgrmOutput
	vegeta                         *export.VegetaWriter
	html                           *htmlExport
}

// openExports opens every rendering f asks for (see outputs.open).
// attack names the run in vegeta results.
func openExports(o *outputs, f *exportFlags, attack string) (*exports, error) {
	e := &exports{}
	var err error
	open := func(dst *io.WriteCloser, flag, path string, kind outputKind) {
		if err == nil && path != "" {
			*dst, err = o.open(flag, path, kind)
		}
	}
	open(&e.text, "--format text", f.text, textOutput)
	open(&e.summaryJSON, "--summary-json", f.summaryJSON, jsonOutput)
	open(&e.junit, "--junit", f.junit, textOutput)
	open(&e.hlog, "--hlog", f.hlog, textOutput)
	if err == nil && f.html != "" {
		e.html = &htmlExport{name: attack}
		open(&e.html.w, "--html", f.html, textOutput)
	}
	if err == nil && f.hgrm != "" {
		e.hgrm, err = o.openHgrm("--hgrm", f.hgrm)
	}
	if err == nil && f.vegeta != "" {
		format := f.vegetaFormat
		if format == "" {
			format = export.VegetaFormatFor(f.vegeta)
		}
		if !slices.Contains(export.VegetaFormats, format) {
			return nil, fmt.Errorf("--vegeta-format %q: want one of %s", format, strings.Join(export.VegetaFormats, ", "))
		}
		// gob is binary: its strings are redacted before encoding instead.
		kind := map[string]outputKind{"gob": rawOutput, "json": jsonOutput, "csv": textOutput}[format]
		var w io.WriteCloser
		open(&w, "--vegeta", f.vegeta, kind)
		if err == nil {
			e.vegeta, err = export.NewVegetaWriter(w, format, attack)
		}
		if err == nil {
			e.vegeta.Redact = o.secrets.String
		}
	}
	if err != nil {
		return nil, err
	}
	return e, nil
}

// sample passes a probe sample to the renderings that plot them (html).
func (e *exports) sample(s *results.Sample) {
	if e.html != nil {
		e.html.sample(s)
	}
}

// record passes a call to the renderings that take every call (vegeta).
func (e *exports) record(r *results.Record) error {
	if e.vegeta != nil {
		return e.vegeta.Add(r)
	}
	return nil
}

// write writes the renderings of the finished summary; the caller closes
// the outputs.
func (e *exports) write(s *report.Summary, agg *report.Aggregator) error {
	var errs []error
	if e.text != nil {
		errs = append(errs, reporttext.Write(e.text, s))
	}
	if e.summaryJSON != nil {
		errs = append(errs, s.JSON(e.summaryJSON))
	}
	if e.junit != nil {
		errs = append(errs, export.JUnit(e.junit, s))
	}
	if e.hlog != nil {
		errs = append(errs, export.WriteHlog(e.hlog, agg))
	}
	if e.hgrm != nil {
		errs = append(errs, e.hgrm.write(agg))
	}
	if e.vegeta != nil {
		errs = append(errs, e.vegeta.Close())
	}
	if e.html != nil {
		errs = append(errs, e.html.write(s, agg))
	}
	return errors.Join(errs...)
}
