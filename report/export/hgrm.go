package export

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/bits"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mcpchaos/mcpchaos/report"
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

// WriteHgrm writes the named histogram (one of HistogramNames) as an .hgrm
// percentile distribution, values in milliseconds.
func WriteHgrm(w io.Writer, a *report.Aggregator, name string) error {
	h := a.Histogram(name)
	if h == nil {
		return fmt.Errorf("write hgrm: unknown histogram %q", name)
	}
	bw := bufio.NewWriter(w)
	writeHgrm(bw, h)
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
	sub := subBucketBits(h.SignificantFigures())
	fmt.Fprintf(w, "#[Buckets = %12d, SubBuckets     = %12d]\n", bucketCount(h.HighestTrackableValue(), sub), 1<<sub)
}

// subBucketBits is log2 of the sub-bucket count of an HdrHistogram of
// lowest value 1 with sigFigs significant figures: the bits of the
// largest value it keeps at unit resolution, 2·10^sigFigs (11 for three).
func subBucketBits(sigFigs int64) int {
	unit := int64(2)
	for range sigFigs {
		unit *= 10
	}
	return bits.Len64(uint64(unit - 1))
}

// bucketCount is the number of buckets of an HdrHistogram of lowest value
// 1 and subBits sub-bucket bits that reaches highest (HdrHistogram's
// getBucketsNeededToCoverValue).
func bucketCount(highest int64, subBits int) int {
	n := 1
	for untrackable := int64(1) << subBits; untrackable <= highest; n++ {
		if untrackable > math.MaxInt64/2 {
			return n + 1
		}
		untrackable <<= 1
	}
	return n
}
