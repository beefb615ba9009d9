package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mcpchaos/mcpchaos/internal/redact"
	"github.com/mcpchaos/mcpchaos/report"
)

// outputs opens the files a command writes. Every output of run and
// report is opened by open, the one place that says what a path means
// ("-" is standard output, and only one output may take it); commands open
// them all before any work, so a path that cannot be created fails with
// exit status 2 before a call is sent.
type outputs struct {
	stdout io.Writer
	// secrets redact every file opened (redaction.go); stdout is the
	// command's, already redacted.
	secrets *redact.Set
	// toStdout names the flag that writes to standard output, if one does.
	toStdout string
	created  []string
	files    []*output
}

// newOutputs returns the outputs of a command whose (redacted) standard
// output is stdout; files are redacted with the secrets ctx carries.
func newOutputs(ctx context.Context, stdout io.Writer) *outputs {
	return &outputs{stdout: stdout, secrets: redact.FromContext(ctx)}
}

// output is one opened output; Close is idempotent.
type output struct {
	io.Writer
	rw     *redact.Writer // what Writer holds back until Close; nil if raw
	f      *os.File       // nil for standard output
	closed bool
}

func (o *output) Close() error {
	if o.closed || o.f == nil {
		o.closed = true
		return nil
	}
	o.closed = true
	var err error
	if o.rw != nil {
		err = o.rw.Flush()
	}
	if cerr := o.f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("close %s: %w", o.f.Name(), err)
	}
	return nil
}

// open opens path for flag (named in errors): "-" is standard output.
// What is written to a file is redacted as kind says (textOutput,
// jsonOutput; rawOutput for bytes the caller redacts itself).
func (o *outputs) open(flag, path string, kind outputKind) (io.WriteCloser, error) {
	if path == "-" {
		if o.toStdout != "" {
			return nil, fmt.Errorf("%s and %s both write to standard output (-)", o.toStdout, flag)
		}
		o.toStdout = flag
		out := &output{Writer: o.stdout}
		o.files = append(o.files, out)
		return out, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("%s: create %q: %w", flag, path, err)
	}
	o.created = append(o.created, path)
	out := &output{Writer: f, f: f}
	if o.secrets == nil {
		o.secrets = redact.New()
	}
	switch kind {
	case textOutput:
		out.rw = o.secrets.Writer(f)
	case jsonOutput:
		out.rw = o.secrets.JSONWriter(f)
	}
	if out.rw != nil {
		out.Writer = out.rw
	}
	o.files = append(o.files, out)
	return out, nil
}

// abort closes every output and removes the files it created (the command
// failed before it wrote them).
func (o *outputs) abort() {
	for _, f := range o.files {
		_ = f.Close()
	}
	for _, p := range o.created {
		_ = os.Remove(p)
	}
}

// closeAll closes every output still open.
func (o *outputs) closeAll() error {
	var errs []error
	for _, f := range o.files {
		errs = append(errs, f.Close())
	}
	return errors.Join(errs...)
}

// hgrmOutput is where .hgrm distributions go: one file per histogram
// (PATH.NAME.hgrm, see hgrmPath), or every block on standard output.
type hgrmOutput struct {
	files  map[string]io.WriteCloser
	stdout io.Writer
}

// openHgrm opens the .hgrm outputs of path.
func (o *outputs) openHgrm(flag, path string) (*hgrmOutput, error) {
	if path == "-" {
		w, err := o.open(flag, path, textOutput)
		if err != nil {
			return nil, err
		}
		return &hgrmOutput{stdout: w}, nil
	}
	h := &hgrmOutput{files: map[string]io.WriteCloser{}}
	for _, name := range report.HistogramNames() {
		w, err := o.open(flag, hgrmPath(path, name), textOutput)
		if err != nil {
			return nil, err
		}
		h.files[name] = w
	}
	return h, nil
}

// hgrmPath is the file of one histogram: out.hgrm → out.call.hgrm (a name
// without the .hgrm extension gets .call.hgrm added).
func hgrmPath(path, name string) string {
	return strings.TrimSuffix(path, ".hgrm") + "." + name + ".hgrm"
}

// write writes every histogram's distribution: each to its file, or on
// standard output one after the other, each after a "# histogram NAME"
// line.
func (h *hgrmOutput) write(agg *report.Aggregator) error {
	for _, name := range report.HistogramNames() {
		w := h.stdout
		if w == nil {
			w = h.files[name]
		} else if _, err := fmt.Fprintf(w, "# histogram %s (values in milliseconds)\n", name); err != nil {
			return fmt.Errorf("write hgrm: %w", err)
		}
		if err := agg.WriteHgrm(w, name); err != nil {
			return err
		}
		if h.stdout != nil {
			if _, err := fmt.Fprintln(w); err != nil {
				return fmt.Errorf("write hgrm: %w", err)
			}
		}
	}
	return nil
}
