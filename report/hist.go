package report

import (
	"math"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mcpchaos/mcpchaos/report/summary"
)

// Histogram geometry: latencies are microseconds from 1 µs to one hour;
// Retry-After values are milliseconds up to a day. Three significant
// figures everywhere.
const (
	latencyMaxUs  = int64(time.Hour / time.Microsecond)
	retryAfterMax = int64(24 * time.Hour / time.Millisecond)
	sigFigs       = 3
)

// The histograms a pNN() check may name, in report order. The index
// constants below address Aggregator.lat.
const (
	histCall = iota
	histService
	histFirstProgress
	histProgressGap
	histTimeoutError
	numHists
)

// histNames is the immutable table of histogram names, by index: the
// summary's (the conversion panics at start if they ever differ in number).
var histNames = [numHists]string(summary.HistogramNames())

// HistogramNames returns the histograms a pNN() check may name.
func HistogramNames() []string { return append([]string(nil), histNames[:]...) }

// HistogramsWithValues returns the histograms (of HistogramNames) that
// recorded at least one value, in report order.
func (a *Aggregator) HistogramsWithValues() []string {
	var out []string
	for i, name := range histNames {
		if a.lat[i].count() > 0 {
			out = append(out, name)
		}
	}
	return out
}

// histIndex returns the index of a histogram name, or -1.
func histIndex(name string) int {
	for i, n := range histNames {
		if n == name {
			return i
		}
	}
	return -1
}

// hist is an HdrHistogram plus the exact maximum and sum, so max and mean
// are not rounded to a bucket and no percentile exceeds the real maximum.
type hist struct {
	h       *hdrhistogram.Histogram
	highest int64
	max     int64
	sum     float64
}

func newHist(highest int64) *hist {
	return &hist{h: hdrhistogram.New(1, highest, sigFigs), highest: highest}
}

// record adds one value, clamped to [0, highest].
func (h *hist) record(v int64) {
	v = max(0, min(v, h.highest))
	// v is in range, so RecordValue cannot fail.
	_ = h.h.RecordValue(v)
	h.max = max(h.max, v)
	h.sum += float64(v)
}

func (h *hist) count() int64 {
	if h == nil {
		return 0
	}
	return h.h.TotalCount()
}

// quantile returns the value at percentile p (0..100], never above the
// exact maximum; 0 when empty.
func (h *hist) quantile(p float64) int64 {
	if h.count() == 0 {
		return 0
	}
	return min(ValueAtPercentile(h.h, p), h.max)
}

// ValueAtPercentile is HdrHistogram's getValueAtPercentile (Java and the
// JavaScript port): the value of the ⌈p% of the count⌉-th value. The Go
// port rounds that rank to the nearest instead, which gives another value
// for small counts (p90 of 28 values: the 25th, not the 26th); asking it
// for the percentile whose rounded rank is the ceiling gives HdrHistogram's.
func ValueAtPercentile(h *hdrhistogram.Histogram, p float64) int64 {
	n := h.TotalCount()
	if n == 0 {
		return 0
	}
	p = min(max(math.Nextafter(p, math.Inf(-1)), 0), 100)
	rank := max(int64(math.Ceil(p/100*float64(n))), 1)
	return h.ValueAtPercentile(100 * float64(rank) / float64(n))
}

// mean returns the exact arithmetic mean; 0 when empty.
func (h *hist) mean() float64 {
	if h.count() == 0 {
		return 0
	}
	return h.sum / float64(h.count())
}

// latency summarises a microsecond histogram in milliseconds.
func (h *hist) latency() Latency {
	if h.count() == 0 {
		return Latency{}
	}
	return Latency{
		P50:   usToMs(h.quantile(50)),
		P90:   usToMs(h.quantile(90)),
		P99:   usToMs(h.quantile(99)),
		P999:  usToMs(h.quantile(99.9)),
		Max:   usToMs(h.max),
		Mean:  math.Round(h.mean()) / 1000,
		Count: h.count(),
	}
}

// histSet is a Summary's copy of the run's latency histograms
// (summary.Quantiles).
type histSet [numHists]*hist

// Quantile returns the value at percentile p of the named histogram, in
// microseconds; 0 for an unknown name.
func (hs *histSet) Quantile(name string, p float64) int64 {
	if i := histIndex(name); i >= 0 {
		return hs[i].quantile(p)
	}
	return 0
}

// usToMs converts microseconds to milliseconds.
func usToMs(us int64) float64 { return float64(us) / 1000 }

// round3 rounds to three decimals, so rates and means print cleanly.
func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// Durations is a histogram of durations like the run's own (microseconds,
// 1 µs to 1 h, the exact maximum kept), for the summaries that other
// packages own (the proxy's).
type Durations struct{ h *hist }

// NewDurations returns an empty histogram.
func NewDurations() *Durations { return &Durations{h: newHist(latencyMaxUs)} }

// Record adds one duration.
func (d *Durations) Record(x time.Duration) { d.h.record(x.Microseconds()) }

// Count returns how many durations were recorded.
func (d *Durations) Count() int64 { return d.h.count() }

// Ms returns the value at percentile p (0..100] in milliseconds, never
// above the exact maximum, which p 100 gives; 0 when empty.
func (d *Durations) Ms(p float64) float64 { return usToMs(d.h.quantile(p)) }
