package probes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// serve starts a loopback HTTP server for one test.
func serve(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	srv := httptest.NewServer(h) // listens on 127.0.0.1
	t.Cleanup(srv.Close)
	return srv.URL + "/metrics"
}

func newMetric(t *testing.T, url, name string, labels map[string]string) *Metric {
	t.Helper()
	m := NewMetric(url, name, labels)
	t.Cleanup(func() { _ = m.Close() })
	return m
}

func TestMetricScrape(t *testing.T) {
	t.Parallel()
	var gotAccept string
	url := serve(t, func(w http.ResponseWriter, r *http.Request) {
		gotAccept = r.Header.Get("Accept")
		w.Header().Set("Content-Type", textType)
		_, _ = w.Write([]byte(textBody))
	})
	tests := []struct {
		name     string
		metric   string
		labels   map[string]string
		want     float64
		wantName string
		wantErr  string
	}{
		{name: "gauge", metric: "mcp_inflight_calls", want: 4.5, wantName: "metric mcp_inflight_calls"},
		{name: "labels", metric: "mcp_inflight_calls", labels: map[string]string{"transport": "http", "tool": "slow"}, want: 3,
			wantName: `metric mcp_inflight_calls{tool="slow",transport="http"}`},
		{name: "absent", metric: "nope", wantErr: `scrape "` + url + `": metric "nope": absent`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMetric(t, url, tt.metric, tt.labels)
			got, err := m.Sample(t.Context())
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, ErrAbsent) {
					t.Fatalf("Sample error = %v, want one containing %q and wrapping ErrAbsent", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Sample = %v, want %v", got, tt.want)
			}
			if m.Name() != tt.wantName {
				t.Errorf("Name = %q, want %q", m.Name(), tt.wantName)
			}
		})
	}
	if !strings.HasPrefix(gotAccept, "text/plain;version=0.0.4") {
		t.Errorf("Accept = %q, want the text format first", gotAccept)
	}
}

func TestMetricHTTPErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		handler http.HandlerFunc
		wantErr string
	}{
		{"status 500", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", 500) }, "HTTP status 500"},
		{"status 404", http.NotFound, "HTTP status 404"},
		{"openmetrics served anyway", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", omType)
			_, _ = w.Write([]byte("# TYPE m gauge\nm 1\n")) // no # EOF
		}, "# EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := newMetric(t, serve(t, tt.handler), "m", nil)
			if _, err := m.Sample(t.Context()); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Sample error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
	t.Run("unreachable", func(t *testing.T) {
		t.Parallel()
		url := serve(t, http.NotFound)
		m := newMetric(t, url, "m", nil)
		m.Client.Transport.(*http.Transport).DialContext = func(context.Context, string, string) (net.Conn, error) {
			return nil, errors.New("dial refused by test")
		}
		_, err := m.Sample(t.Context())
		if err == nil || !strings.Contains(err.Error(), "dial refused by test") || strings.Count(err.Error(), url) != 1 {
			t.Fatalf("Sample error = %v, want the dial error naming the URL once", err)
		}
	})
}

// endless streams body forever, until the client goes away.
func endless(line string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", textType)
		chunk := bytes.Repeat([]byte(line), (64<<10)/len(line))
		rc := http.NewResponseController(w)
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			_ = rc.Flush()
		}
	}
}

// TestMetricEndlessBody is not parallel: it measures allocations, and the
// parallel tests wait until it is done.
func TestMetricEndlessBody(t *testing.T) {
	tests := []struct {
		name     string
		line     string
		wantErr  string
		maxAlloc uint64 // far below the 16 MiB body
	}{
		{"lines that do not mention the metric", `filler_metric{a="xxxxxxxxxxxxxxxx"} 1` + "\n", "body exceeds 16777216 bytes", 2 << 20},
		// The kept lines grow to MaxMatchBytes (1 MiB).
		{"lines that all mention it", "mcp_inflight_calls 1\n", "exceed 1048576 bytes", 6 << 20},
		// The scanner's buffer grows to MaxLineBytes (1 MiB).
		{"one endless line", "x", "line 1 is longer than 1048576 bytes", 5 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMetric(t, serve(t, endless(tt.line)), "mcp_inflight_calls", nil)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err := m.Sample(t.Context())
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Sample error = %v, want one containing %q", err, tt.wantErr)
			}
			// The body never ends: the bound tells giving up from reading
			// on, not how fast a busy machine reads 16 MiB.
			if elapsed > time.Minute {
				t.Errorf("Sample took %v to give up", elapsed)
			}
			// The body streams through: what the probe (and the server
			// writing it) allocate in all stays far below its 16 MiB.
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("gave up after %v, having allocated %d KiB", elapsed.Round(time.Millisecond), alloc>>10)
			if alloc > tt.maxAlloc {
				t.Errorf("allocated %d KiB while reading an endless body, want at most %d KiB", alloc>>10, tt.maxAlloc>>10)
			}
		})
	}
}

func TestMetricTimeouts(t *testing.T) {
	t.Parallel()
	stall := make(chan struct{})
	t.Cleanup(func() { close(stall) })
	// bodyStalls sends the headers and one line, then nothing more.
	bodyStalls := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", textType)
		_, _ = w.Write([]byte("mcp_inflight_calls 1\n"))
		_ = http.NewResponseController(w).Flush()
		select {
		case <-r.Context().Done():
		case <-stall:
		}
	}
	tests := []struct {
		name    string
		handler http.HandlerFunc
		clientT time.Duration // the probe's own client timeout; 0 = default
		ctxT    time.Duration // the caller's deadline; 0 = none
	}{
		{"no headers, caller's deadline", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-stall:
			}
		}, 0, 200 * time.Millisecond},
		{"body stalls, caller's deadline", bodyStalls, 0, 200 * time.Millisecond},
		{"body stalls, client timeout", bodyStalls, 200 * time.Millisecond, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := newMetric(t, serve(t, tt.handler), "mcp_inflight_calls", nil)
			if tt.clientT > 0 {
				m.Client.Timeout = tt.clientT
			}
			ctx := t.Context()
			if tt.ctxT > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.ctxT)
				defer cancel()
			}
			start := time.Now()
			_, err := m.Sample(ctx)
			if err == nil {
				t.Fatal("Sample succeeded against a stalled server")
			}
			if tt.ctxT > 0 && !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("Sample error = %v, want context.DeadlineExceeded", err)
			}
			// The server stalls until the test ends: the bound tells a
			// give-up after about 200ms from a hang, not how late a busy
			// machine's timer fires.
			if elapsed := time.Since(start); elapsed > 30*time.Second {
				t.Errorf("Sample took %v, want about 200ms", elapsed)
			}
		})
	}
}

// TestMetricClientGolang scrapes what a real client_golang registry serves.
func TestMetricClientGolang(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	inflight := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "mcp_inflight_calls", Help: "Calls being handled."}, []string{"tool"})
	calls := prometheus.NewCounter(prometheus.CounterOpts{Name: "mcp_calls_total", Help: "Calls handled."})
	latency := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "mcp_call_seconds", Help: "Latency."})
	reg.MustRegister(inflight, calls, latency, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	url := serve(t, promhttp.HandlerFor(reg, promhttp.HandlerOpts{EnableOpenMetrics: true}).ServeHTTP)

	all := newMetric(t, url, "mcp_inflight_calls", nil)
	slow := newMetric(t, url, "mcp_inflight_calls", map[string]string{"tool": "slow"})
	if _, err := all.Sample(t.Context()); !errors.Is(err, ErrAbsent) {
		t.Fatalf("a vector with no series yet: error = %v, want ErrAbsent", err)
	}

	inflight.WithLabelValues("slow").Add(3)
	inflight.WithLabelValues("echo").Inc()
	calls.Add(7)
	latency.Observe(0.3)
	steps := []struct {
		probe *Metric
		want  float64
	}{
		{all, 4},
		{slow, 3},
		{newMetric(t, url, "mcp_calls_total", nil), 7},
		{newMetric(t, url, "mcp_call_seconds_count", nil), 1},
		{newMetric(t, url, "go_goroutines", nil), -1}, // any positive value
	}
	for _, s := range steps {
		got, err := s.probe.Sample(t.Context())
		if err != nil {
			t.Fatalf("%s: %v", s.probe.Name(), err)
		}
		if (s.want < 0 && got <= 0) || (s.want >= 0 && got != s.want) {
			t.Errorf("%s = %v, want %v", s.probe.Name(), got, s.want)
		}
	}
	inflight.WithLabelValues("slow").Sub(3)
	if got, err := slow.Sample(t.Context()); err != nil || got != 0 {
		t.Errorf("after the slow calls ended: %v, %v; want 0, nil", got, err)
	}
}

// TestMetricConcurrent samples one probe from several goroutines, as an
// engine sampling on a timer might when a scrape is slow.
func TestMetricConcurrent(t *testing.T) {
	t.Parallel()
	var encodings sync.Map
	reg := prometheus.NewRegistry()
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "mcp_inflight_calls", Help: "h"})
	reg.MustRegister(g)
	g.Set(2)
	h := promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	url := serve(t, func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		encodings.Store(w.Header().Get("Content-Encoding"), true)
	})
	m := newMetric(t, url, "mcp_inflight_calls", nil)
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for range 4 {
		wg.Go(func() {
			for range 5 {
				if v, err := m.Sample(t.Context()); err != nil || v != 2 {
					errs <- fmt.Errorf("Sample = %v, %v", v, err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if _, ok := encodings.Load("gzip"); !ok {
		t.Error("no response was gzipped; the compressed path went untested")
	}
}
