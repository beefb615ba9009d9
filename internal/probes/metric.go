package probes

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/redact"
)

// DefaultScrapeTimeout bounds one scrape of a metric probe made by
// NewMetric, whatever the caller's context says.
const DefaultScrapeTimeout = 5 * time.Second

// acceptHeader asks for the text format, which expfmt parses fast.
// OpenMetrics is still decoded when a server sends it anyway.
const acceptHeader = "text/plain;version=0.0.4;q=1,*/*;q=0.1"

// Metric is a probe that scrapes a Prometheus endpoint and sums one
// metric's samples. See readExposition for how the body is read.
type Metric struct {
	// Client makes the requests. NewMetric gives every probe its own, with
	// DefaultScrapeTimeout and response headers bounded to 64 KiB.
	Client *http.Client
	// Limits bound what one scrape reads; zero fields take the defaults.
	Limits Limits

	url    string
	shown  string // url for messages, credentials masked
	metric string
	labels []labelPair // sorted by name
}

// NewMetric returns a probe that scrapes url (a Prometheus text or
// OpenMetrics endpoint) and sums the gauge, counter or untyped samples of
// metric name whose labels include all of labels. A metric the endpoint
// does not export, or no series with those labels, is an error wrapping
// ErrAbsent.
func NewMetric(url, name string, labels map[string]string) *Metric {
	m := &Metric{url: url, shown: redact.URL(url), metric: name}
	for k, v := range labels {
		m.labels = append(m.labels, labelPair{k, v})
	}
	slices.SortFunc(m.labels, func(a, b labelPair) int { return strings.Compare(a.name, b.name) })
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxResponseHeaderBytes = 64 << 10
	m.Client = &http.Client{Timeout: DefaultScrapeTimeout, Transport: tr}
	return m
}

// Name returns "metric NAME" or "metric NAME{label="value",...}".
func (m *Metric) Name() string {
	if len(m.labels) == 0 {
		return "metric " + m.metric
	}
	return "metric " + m.metric + formatLabels(m.labels)
}

// Sample scrapes the endpoint once and returns the metric's sum.
func (m *Metric) Sample(ctx context.Context) (float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, m.url, nil)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // it repeats the URL
		}
		return 0, fmt.Errorf("scrape %q: %w", m.shown, err)
	}
	req.Header.Set("Accept", acceptHeader)
	client := m.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // it repeats the URL
		}
		return 0, fmt.Errorf("scrape %q: %w", m.shown, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		_, _ = io.CopyN(io.Discard, resp.Body, 4<<10) // lets a short error body free the connection
		return 0, fmt.Errorf("scrape %q: HTTP status %d", m.shown, resp.StatusCode)
	}
	exp, err := readExposition(ctx, resp.Body, resp.Header.Get("Content-Type"), m.metric, m.labels, m.Limits)
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
			err = fmt.Errorf("%w (%w)", err, ctx.Err())
		}
		return 0, fmt.Errorf("scrape %q: %w", m.shown, err)
	}
	return exp.value, nil
}

// Close releases the probe's idle connections.
func (m *Metric) Close() error {
	if m.Client != nil {
		m.Client.CloseIdleConnections()
	}
	return nil
}
