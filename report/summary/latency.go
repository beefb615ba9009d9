package summary

// The Summary's latency histograms (call, service, first progress,
// progress gap, timeout error) and the names a pNN() check finds them by.

// Latencies are the histograms, in milliseconds.
type Latencies struct {
	Call          Latency `json:"call"`
	Service       Latency `json:"service"`
	FirstProgress Latency `json:"first_progress"`
	ProgressGap   Latency `json:"progress_gap"`
	TimeoutError  Latency `json:"timeout_error"`
}

// ByName returns the histogram summary of one of HistogramNames, or nil.
func (l *Latencies) ByName(name string) *Latency {
	switch name {
	case "call":
		return &l.Call
	case "service":
		return &l.Service
	case "first_progress":
		return &l.FirstProgress
	case "progress_gap":
		return &l.ProgressGap
	case "timeout_error":
		return &l.TimeoutError
	}
	return nil
}

// Latency is one histogram in milliseconds.
type Latency struct {
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P99   float64 `json:"p99"`
	P999  float64 `json:"p999"`
	Max   float64 `json:"max"`
	Mean  float64 `json:"mean"`
	Count int64   `json:"count"`
}

// histNames is the immutable table of histogram names, in report order.
var histNames = [...]string{"call", "service", "first_progress", "progress_gap", "timeout_error"}

// HistogramNames returns the histograms a pNN() check may name, in report
// order.
func HistogramNames() []string { return append([]string(nil), histNames[:]...) }

// histIndex returns the index of a histogram name, or -1.
func histIndex(name string) int {
	for i, n := range histNames {
		if n == name {
			return i
		}
	}
	return -1
}
