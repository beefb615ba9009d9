package html

import (
	"fmt"
	"math"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// The percentile spectrum, as HdrHistogram plots it: the value at each
// percentile, against 1/(1−p) on a log axis, so that the tail (99%, 99.9%,
// 99.99%) gets as much room as the body. Several runs share one plot.

// spectra are the histograms drawn, in page order, with what their values
// are and what an empty one means. Every report.HistogramNames entry has
// one (TestSpectraCoverEveryHistogram).
var spectra = []struct {
	name, title, none string
}{
	{"call", "Call latency (response − scheduled)", "no call was answered"},
	{"service", "Service latency (response − sent)", "no call was answered"},
	{"first_progress", "First progress (first notification − sent)", "no progress notification arrived"},
	{"progress_gap", "Largest progress gap of each call", "no progress notification arrived"},
	{"timeout_error", "Timeout enforcement error (cancel − deadline)", "no timeout fired"},
}

// ticksPerHalfDistance is the spectrum's resolution, as in HdrHistogram's
// percentile output: this many points each time the distance to 100%
// halves.
const ticksPerHalfDistance = 5

// spectrumPoints returns the spectrum of h in milliseconds, no value above
// maxMs (the exact maximum, when known: a bucket's upper end may exceed
// it; 0: unknown). x is 1/(1−p); the last point is the maximum, at x = the
// number of values (at least 2, so one value still draws a segment). It is
// nil for an empty histogram.
func spectrumPoints(h *hdrhistogram.Histogram, maxMs float64) plotter.XYs {
	n := float64(h.TotalCount())
	if n == 0 {
		return nil
	}
	ps := []float64{0}
	for p := 0.0; ; {
		half := math.Trunc(math.Pow(2, math.Trunc(math.Log2(100/(100-p)))+1))
		if p += 100 / (ticksPerHalfDistance * half); 100/(100-p) >= n {
			break
		}
		ps = append(ps, p)
	}
	ps = append(ps, 100)
	vals := h.ValueAtPercentilesSlice(ps)
	pts := make(plotter.XYs, len(ps))
	for i, p := range ps {
		x := max(n, 2)
		if p < 100 {
			x = 100 / (100 - p)
		}
		y := float64(vals[i]) / 1000
		if maxMs > 0 {
			y = min(y, maxMs)
		}
		pts[i] = plotter.XY{X: x, Y: y}
	}
	return pts
}

// percentileTicks marks 1/(1−p) at 0%, 50%, 90%, 99%, 99.9%, ...
type percentileTicks struct{}

func (percentileTicks) Ticks(_, hi float64) []plot.Tick {
	var ts []plot.Tick
	for k := 0; math.Pow(10, float64(k)) <= hi*(1+1e-9); k++ {
		ts = append(ts, plot.Tick{Value: math.Pow(10, float64(k)), Label: percentileLabel(k)})
		if k == 0 && hi >= 2 {
			ts = append(ts, plot.Tick{Value: 2, Label: "50%"})
		}
	}
	return ts
}

// percentileLabel names the percentile at 1/(1−p) = 10^k: 0%, 90%, 99%,
// 99.9%, ...
func percentileLabel(k int) string {
	switch k {
	case 0:
		return "0%"
	case 1:
		return "90%"
	}
	return "99" + strings.TrimSuffix("."+strings.Repeat("9", k-2), ".") + "%"
}

// timeUnit picks the unit of a latency axis from its largest value in
// milliseconds: ms below 10 s, seconds from there.
func timeUnit(maxMs float64) (name string, perMs float64) {
	if maxMs >= 10_000 {
		return "s", 0.001
	}
	return "ms", 1
}

// spectrumFigure draws one histogram's spectrum for every run that has
// values, or says that none has.
func spectrumFigure(name, title, none string, runs []Run) (Figure, error) {
	type series struct {
		label string
		color int
		pts   plotter.XYs
	}
	var all []series
	maxMs, maxN := 0.0, 2.0
	for i, r := range runs {
		h := r.Agg.Histogram(name)
		if h == nil {
			return Figure{}, fmt.Errorf("spectrum of %q: the aggregator has no such histogram", name)
		}
		exact := 0.0
		if r.Summary != nil {
			exact = r.Summary.Latency.ByName(name).Max
		}
		pts := spectrumPoints(h, exact)
		if pts == nil {
			continue
		}
		label := fmt.Sprintf("%d values", h.TotalCount())
		if len(runs) > 1 {
			label = r.Name + " · " + label
		}
		all = append(all, series{label, i, pts})
		maxMs = max(maxMs, pts[len(pts)-1].Y)
		maxN = max(maxN, pts[len(pts)-1].X)
	}
	if len(all) == 0 {
		return noData(title, none), nil
	}
	unit, scale := timeUnit(maxMs)
	p := newPlot(title, "percentile", unit)
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, percentileTicks{}
	p.Add(plotter.NewGrid())
	for _, s := range all {
		for j := range s.pts {
			s.pts[j].Y *= scale
		}
		l, err := plotter.NewLine(s.pts)
		if err != nil {
			return Figure{}, fmt.Errorf("spectrum of %q: %w", name, err)
		}
		l.Color, l.Width = paletteColor(s.color), 1.5
		p.Add(l)
		p.Legend.Add(s.label, l)
	}
	p.X.Min, p.X.Max = 1, maxN
	p.Legend.Left = true // the spectra rise to the right
	p.Y.Min = 0
	return render(title, p)
}
