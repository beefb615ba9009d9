package report

import (
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/results"
)

// TestMergeSeconds: merging seconds gives what merging their histograms
// gives.
func TestMergeSeconds(t *testing.T) {
	a := NewAggregator(Rules{})
	for i := range 50 {
		a.Add(call(time.Duration(i)*100*time.Millisecond, results.OK, resp(float64(10+i*7))))
	}
	secs := a.Seconds()
	if len(secs) < 3 {
		t.Fatalf("%d seconds, want several", len(secs))
	}
	for _, name := range HistogramNames() {
		want := secs[0].Histogram(name)
		for _, s := range secs[1:3] {
			want.Merge(s.Histogram(name))
		}
		if got := MergeSeconds(secs[:3], name); !got.Equals(want) {
			t.Errorf("MergeSeconds(%s) has %d values, p50 %d; merging the seconds' histograms: %d, p50 %d",
				name, got.TotalCount(), got.ValueAtPercentile(50), want.TotalCount(), want.ValueAtPercentile(50))
		}
	}
	if MergeSeconds(secs, "nope") != nil {
		t.Error("an unknown histogram name gives a histogram")
	}
}
