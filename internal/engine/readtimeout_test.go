package engine

import (
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/probes"
)

// TestProbeReadTimeout: a metric probe's scrape is bounded by
// Orphans.ReadTimeout (a test on a loaded machine sets a minute), and by
// the probes package's default when the plan sets none.
func TestProbeReadTimeout(t *testing.T) {
	tests := []struct {
		name string
		set  time.Duration
		want time.Duration
	}{
		{"default", 0, probes.DefaultScrapeTimeout},
		{"set by the plan", time.Minute, time.Minute},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &runner{clients: &clientPool{}}
			r.plan.Orphans.ReadTimeout = tc.set
			pr := r.newProbeRun("http://127.0.0.1:1/metrics")
			if len(pr.counts) != 1 {
				t.Fatalf("%d count probes, want the built-in target's metric", len(pr.counts))
			}
			m, ok := pr.counts[0].(named).Probe.(*probes.Metric)
			if !ok {
				t.Fatalf("probe %T, want a metric probe", pr.counts[0])
			}
			if m.Client.Timeout != tc.want || r.plan.Orphans.readTimeout() != tc.want {
				t.Errorf("scrape bound %v, reading bound %v; want %v", m.Client.Timeout, r.plan.Orphans.readTimeout(), tc.want)
			}
		})
	}
}
