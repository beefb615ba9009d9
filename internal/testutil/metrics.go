package testutil

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Scrape reads a Prometheus text page and returns each sample without
// labels (the target's own counters and gauges), by metric name. A page that
// does not parse is an error.
func Scrape(ctx context.Context, url string) (map[string]float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("scrape %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("scrape %s: %s", url, resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("scrape %s: parse: %w", url, err)
	}
	out := map[string]float64{}
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			if len(m.GetLabel()) > 0 {
				continue
			}
			switch {
			case m.Gauge != nil:
				out[name] = m.GetGauge().GetValue()
			case m.Counter != nil:
				out[name] = m.GetCounter().GetValue()
			case m.Untyped != nil:
				out[name] = m.GetUntyped().GetValue()
			}
		}
	}
	return out, nil
}

// MustScrape is Scrape that fails the test on an error.
func MustScrape(t testing.TB, url string) map[string]float64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), WaitLong)
	defer cancel()
	m, err := Scrape(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Watcher scrapes a metrics page in the background and keeps the last page
// it could read: the ground truth of a process whose endpoint is gone once
// the process ends.
type Watcher struct {
	mu     sync.Mutex
	last   map[string]float64
	reads  int
	cancel context.CancelFunc
	done   chan struct{}
}

// Watch scrapes url() every 50 ms until Stop. url may return "" while the
// address is not known yet (a process still starting), and may change (a
// process started again listens elsewhere).
func Watch(url func() string) *Watcher {
	ctx, cancel := context.WithCancel(context.Background())
	w := &Watcher{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			if u := url(); u != "" {
				rctx, rcancel := context.WithTimeout(ctx, time.Second)
				m, err := Scrape(rctx, u)
				rcancel()
				if err == nil {
					w.mu.Lock()
					w.last, w.reads = m, w.reads+1
					w.mu.Unlock()
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return w
}

// Stop ends the scraping and returns the last page read and how many pages
// were read. Once Stop returns, no scrape is under way.
func (w *Watcher) Stop() (last map[string]float64, reads int) {
	w.cancel()
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.last, w.reads
}
