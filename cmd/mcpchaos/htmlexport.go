package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sync"

	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/report/html"
	"github.com/mcpchaos/mcpchaos/report/merge"
	"github.com/mcpchaos/mcpchaos/results"
)

// maxHTMLSamples bounds the probe samples an HTML report keeps per run:
// past it every other one is dropped and only every second one after is
// kept, so a week-long run plots at a coarser step instead of growing.
const maxHTMLSamples = 50_000

// htmlExport gathers what the HTML report shows besides the summary and
// the aggregator: the probe samples (which arrive from the probes'
// goroutine during a run), the scenario as run, and, for a report of
// several files, each file's own run to overlay.
type htmlExport struct {
	w        io.WriteCloser
	name     string
	scenario json.RawMessage

	mu      sync.Mutex
	samples []results.Sample
	stride  int // keep one sample in stride
	seen    int

	others []html.Run
}

// sample keeps s, thinning the samples once there are maxHTMLSamples.
func (h *htmlExport) sample(s *results.Sample) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seen++
	if h.stride == 0 {
		h.stride = 1
	}
	if h.seen%h.stride != 0 {
		return
	}
	if len(h.samples) >= maxHTMLSamples {
		kept := h.samples[:0]
		for i := 0; i < len(h.samples); i += 2 {
			kept = append(kept, h.samples[i])
		}
		h.samples = kept
		h.stride *= 2
	}
	h.samples = append(h.samples, *s)
}

// write renders the page: the run (or the merge) first, then the runs to
// overlay.
func (h *htmlExport) write(s *report.Summary, agg *report.Aggregator) error {
	h.mu.Lock()
	samples := h.samples
	h.mu.Unlock()
	runs := append([]html.Run{{Name: h.name, Summary: s, Agg: agg, Samples: samples, Scenario: h.scenario, Version: version}}, h.others...)
	if err := html.Write(h.w, html.Input{Runs: runs}); err != nil {
		return fmt.Errorf("write html report: %w", err)
	}
	return nil
}

// addFileRuns reads each results file again on its own, so that a report
// of several files overlays each file's spectra beside the merge.
func (h *htmlExport) addFileRuns(ctx context.Context, paths []string) error {
	for _, p := range paths {
		var samples []results.Sample
		m, err := merge.Merge(ctx, []string{p}, merge.MergeOptions{OnSample: func(s *results.Sample) error {
			if len(samples) < maxHTMLSamples {
				samples = append(samples, *s)
			}
			return nil
		}})
		if err != nil {
			return err
		}
		run := html.Run{Name: filepath.Base(p), Summary: m.Summary(), Agg: m.Agg, Samples: samples, Version: version}
		if len(m.Files) > 0 {
			run.Scenario, run.Version = m.Files[0].Header.Config, m.Files[0].Header.Version
		}
		h.others = append(h.others, run)
	}
	return nil
}
