package report

import "testing"

// TestValueAtPercentileIsHdrHistograms: the rank is the ceiling of p% of
// the count, as in HdrHistogram's Java and JavaScript code (the Go port
// rounds it).
func TestValueAtPercentileIsHdrHistograms(t *testing.T) {
	h := newHist(latencyMaxUs)
	for v := int64(1); v <= 28; v++ {
		h.record(v)
	}
	for _, tt := range []struct {
		p    float64
		want int64
	}{{50, 14}, {90, 26}, {99, 28}, {100, 28}, {3.5, 1}, {0.001, 1}} {
		if got := h.quantile(tt.p); got != tt.want {
			t.Errorf("p%v of 1..28 = %d, want %d", tt.p, got, tt.want)
		}
	}
}
