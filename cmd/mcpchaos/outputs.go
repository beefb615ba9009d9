package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mcpchaos/mcpchaos/report"
)

// outputs opens the files a command writes. Every output of run and
// report is opened by open, the one place that says what a path means
// ("-" is standard output, and only one output may take it); commands open
// them all before any work, so a path that cannot be created fails with
// exit status 2 before a call is sent.
type outputs struct {
	stdout io.Writer
	// toStdout names the flag that writes to standard output, if one does.
	toStdout string
	created  []string
	files    []*output
}

// output is one opened output; Close is idempotent.
type output struct {
	io.Writer
	f      *os.File // nil for standard output
	closed bool
}

func (o *output) Close() error {
	if o.closed || o.f == nil {
		o.closed = true
		return nil
	}
	o.closed = true
	if err := o.f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", o.f.Name(), err)
	}
	return nil
}

// open opens path for flag (named in errors): "-" is standard output.
func (o *outputs) open(flag, path string) (io.WriteCloser, error) {
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
		w, err := o.open(flag, path)
		if err != nil {
			return nil, err
		}
		return &hgrmOutput{stdout: w}, nil
	}
	h := &hgrmOutput{files: map[string]io.WriteCloser{}}
	for _, name := range report.HistogramNames() {
		w, err := o.open(flag, hgrmPath(path, name))
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
