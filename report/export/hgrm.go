package report

import (
	"bufio"
	"fmt"
	"io"
	"math"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// The .hgrm format: the percentile distribution text that HdrHistogram's
// own tools print (Java's outputPercentileDistribution, which the
// JavaScript port and the HdrHistogram plotter read), with values in
// milliseconds. hdrhistogram-go's PercentilesPrint prints a variant (tabs
// in the heading, six decimals, "inf" on the last line), so the lines are
// formatted here, from the library's own percentile iteration.

// hgrmTicks is the number of reporting points per half distance to 100%,
// HdrHistogram's default.
const hgrmTicks = 5

// usPerMs is the value unit scaling: histograms hold microseconds, .hgrm
// files print milliseconds.
const usPerMs = 1000.0

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

// WriteHgrm writes the named histogram (one of HistogramNames) as an .hgrm
// percentile distribution, values in milliseconds.
func (a *Aggregator) WriteHgrm(w io.Writer, name string) error {
	i := histIndex(name)
	if i < 0 {
		return fmt.Errorf("write hgrm: unknown histogram %q", name)
	}
	bw := bufio.NewWriter(w)
	writeHgrm(bw, a.lat[i].h)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write hgrm %s: %w", name, err)
	}
	return nil
}

func writeHgrm(w io.Writer, h *hdrhistogram.Histogram) {
	fmt.Fprintf(w, "%12s %14s %10s %14s\n\n", "Value", "Percentile", "TotalCount", "1/(1-Percentile)")
	if h.TotalCount() > 0 {
		for _, b := range h.CumulativeDistributionWithTicks(hgrmTicks) {
			p := b.Quantile / 100
			if b.Quantile == 100 {
				fmt.Fprintf(w, "%12.3f %2.12f %10d\n", float64(b.ValueAt)/usPerMs, p, b.Count)
				continue
			}
			fmt.Fprintf(w, "%12.3f %2.12f %10d %14.2f\n", float64(b.ValueAt)/usPerMs, p, b.Count, 1/(1-p))
		}
	}
	fmt.Fprintf(w, "#[Mean    = %12.3f, StdDeviation   = %12.3f]\n", h.Mean()/usPerMs, h.StdDev()/usPerMs)
	fmt.Fprintf(w, "#[Max     = %12.3f, Total count    = %12d]\n", float64(h.Max())/usPerMs, h.TotalCount())
	fmt.Fprintf(w, "#[Buckets = %12d, SubBuckets     = %12d]\n", bucketCount(latencyMaxUs), 1<<subBucketBits)
}

// bucketCount is the number of buckets of an HdrHistogram of lowest value
// 1 and three significant figures that reaches highest (HdrHistogram's
// getBucketsNeededToCoverValue).
func bucketCount(highest int64) int {
	n := 1
	for untrackable := int64(1) << subBucketBits; untrackable <= highest; n++ {
		if untrackable > math.MaxInt64/2 {
			return n + 1
		}
		untrackable <<= 1
	}
	return n
}
