// Package livemetrics serves Prometheus metrics of a running mcpchaos
// (mcpchaos run --metrics-listen): calls by tool and outcome, calls in
// flight, the offered and achieved rates, latency histograms, faults
// injected and the orphan probes' values, so a distributed run is watched
// in an existing Prometheus and Grafana (deploy/grafana). Each process
// serves its own figures, labelled with its shard; Prometheus sums them.
package livemetrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/mcpchaos/mcpchaos/results"
)

// Metrics are the live figures of one run.
type Metrics struct {
	reg                 *prometheus.Registry
	calls               *prometheus.CounterVec
	callLatency         *prometheus.HistogramVec
	serviceLatency      *prometheus.HistogramVec
	faults              *prometheus.CounterVec
	inFlight, scheduled prometheus.Gauge
	offered, achieved   prometheus.Gauge
	probes              *prometheus.GaugeVec

	mu       sync.Mutex
	lastSent int64 // scheduled − dropped at the last Tick
	lastAt   time.Time
}

// latencyBuckets span 1 ms to about 65 s.
var latencyBuckets = prometheus.ExponentialBuckets(0.001, 2, 17)

// New returns the metrics of a run of scenario, labelled with shard ("" for
// a whole run; "I/N" otherwise).
func New(scenario, shard string) *Metrics {
	labels := prometheus.Labels{"scenario": scenario}
	if shard != "" {
		labels["shard"] = shard
	}
	f := func(name, help string) prometheus.Opts {
		return prometheus.Opts{Namespace: "mcpchaos", Name: name, Help: help, ConstLabels: labels}
	}
	h := func(name, help string) prometheus.HistogramOpts {
		o := f(name, help)
		return prometheus.HistogramOpts{Namespace: o.Namespace, Name: o.Name, Help: o.Help, ConstLabels: labels, Buckets: latencyBuckets}
	}
	m := &Metrics{reg: prometheus.NewRegistry(),
		calls:          prometheus.NewCounterVec(prometheus.CounterOpts(f("calls_total", "Calls ended, by tool and outcome (one outcome per call).")), []string{"tool", "outcome"}),
		callLatency:    prometheus.NewHistogramVec(h("call_latency_seconds", "Response minus scheduled time, of answered calls (free of coordinated omission)."), []string{"tool"}),
		serviceLatency: prometheus.NewHistogramVec(h("service_latency_seconds", "Response minus sent time, of answered calls."), []string{"tool"}),
		faults:         prometheus.NewCounterVec(prometheus.CounterOpts(f("faults_injected_total", "Faults that acted on a call, by kind.")), []string{"kind"}),
		inFlight:       prometheus.NewGauge(prometheus.GaugeOpts(f("calls_in_flight", "Calls sent and not ended."))),
		scheduled:      prometheus.NewGauge(prometheus.GaugeOpts(f("calls_scheduled", "Calls scheduled so far by this process's pacer."))),
		offered:        prometheus.NewGauge(prometheus.GaugeOpts(f("rate_offered", "The pacer's offered rate now, calls per second (this process's share)."))),
		achieved:       prometheus.NewGauge(prometheus.GaugeOpts(f("rate_achieved", "Calls sent (scheduled and not dropped) per second, over the last status tick."))),
		probes:         prometheus.NewGaugeVec(prometheus.GaugeOpts(f("probe_value", "The last reading of each orphan probe.")), []string{"probe"}),
	}
	m.reg.MustRegister(m.calls, m.callLatency, m.serviceLatency, m.faults, m.inFlight, m.scheduled, m.offered, m.achieved, m.probes)
	return m
}

// Record counts an ended call (from the run's one collector goroutine).
func (m *Metrics) Record(r *results.Record) {
	m.calls.WithLabelValues(r.Tool, r.Outcome).Inc()
	if r.ResponseUs > 0 {
		m.callLatency.WithLabelValues(r.Tool).Observe(float64(r.ResponseUs) / 1e6)
		if r.SentUs > 0 && r.ResponseUs >= r.SentUs {
			m.serviceLatency.WithLabelValues(r.Tool).Observe(float64(r.ResponseUs-r.SentUs) / 1e6)
		}
	}
	for _, f := range r.Faults {
		if !f.Skipped {
			m.faults.WithLabelValues(f.Kind).Inc()
		}
	}
}

// Tick sets the figures of the status line: calls scheduled, dropped and in
// flight so far, and the offered rate now.
func (m *Metrics) Tick(scheduled, dropped, inFlight int64, offered float64) {
	m.inFlight.Set(float64(inFlight))
	m.scheduled.Set(float64(scheduled))
	m.offered.Set(offered)
	m.mu.Lock()
	defer m.mu.Unlock()
	now, sent := time.Now(), scheduled-dropped
	if !m.lastAt.IsZero() {
		if dt := now.Sub(m.lastAt).Seconds(); dt > 0 {
			m.achieved.Set(float64(sent-m.lastSent) / dt)
		}
	}
	m.lastSent, m.lastAt = sent, now
}

// Sample sets the probes' last readings.
func (m *Metrics) Sample(s *results.Sample) {
	for name, v := range s.Probes {
		m.probes.WithLabelValues(name).Set(v)
	}
}

// Serve serves /metrics on addr until the returned stop is called; the
// listener is open when Serve returns, and its address is returned (addr
// may end in :0).
func (m *Metrics) Serve(ctx context.Context, addr string) (bound string, stop func(), err error) {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return "", nil, fmt.Errorf("metrics: listen on %q: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = err // the run goes on without its live view
		}
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_ = srv.Shutdown(sctx)
			<-done
		})
	}
	return ln.Addr().String(), stop, nil
}
