package report

import hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

// MergeSeconds returns the named histogram (one of HistogramNames, in
// microseconds) of the calls that ended in any of secs: a new HdrHistogram
// with the run-wide geometry, or nil for an unknown name. It allocates one
// histogram however many seconds it merges, where merging each
// Second.Histogram would allocate one per second: a plot of a long run
// groups its seconds with it.
func MergeSeconds(secs []Second, name string) *hdrhistogram.Histogram {
	i := histIndex(name)
	if i < 0 {
		return nil
	}
	h := hdrhistogram.New(1, latencyMaxUs, sigFigs)
	for _, s := range secs {
		for v, n := range s.lat[i] {
			// v is a bucket's lowest value of this very geometry: in range.
			_ = h.RecordValues(v, n)
		}
	}
	return h
}
