package html

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"gonum.org/v1/plot/plotter"

	"github.com/mcpchaos/mcpchaos/results"
)

// The server's work against the client's calls in flight, from the probe
// samples of the results file: where a probe stays above the client's
// line after cancels, the server is working for nobody.

// maxSamplePoints bounds the points of one line; more samples are grouped
// and each group drawn as its largest value, so a short peak of leaked
// work survives the thinning.
const maxSamplePoints = 1000

// workFigure draws each probe's reading and the client's calls in flight,
// over time since origin (the first sample's time when origin is zero).
func workFigure(samples []results.Sample, origin time.Time) (Figure, error) {
	const title = "Server work (probes) and client calls in flight"
	if len(samples) == 0 {
		return noData(title, "no probe samples: the run read no count probe during the load"), nil
	}
	if origin.IsZero() {
		origin = samples[0].T
	}
	names := map[string]bool{}
	for _, s := range samples {
		for n := range s.Probes {
			names[n] = true
		}
	}
	if len(names) == 0 {
		return noData(title, "no probe values in the samples: no count probe could be read"), nil
	}
	type line struct {
		label string
		value func(s *results.Sample) (float64, bool)
	}
	lines := []line{{"client calls in flight", func(s *results.Sample) (float64, bool) { return float64(s.ClientInFlight), true }}}
	for _, n := range slices.Sorted(maps.Keys(names)) {
		lines = append(lines, line{"server: " + n, func(s *results.Sample) (float64, bool) {
			v, ok := s.Probes[n]
			return v, ok
		}})
	}
	per := (len(samples) + maxSamplePoints - 1) / maxSamplePoints
	top := 0.0
	p := newPlot(title, "seconds since "+origin.UTC().Format("15:04:05")+" UTC", "calls")
	p.Add(plotter.NewGrid())
	for i, l := range lines {
		var pts plotter.XYs
		for j := 0; j < len(samples); j += per {
			found, hi := false, 0.0
			for k := j; k < min(j+per, len(samples)); k++ {
				if v, ok := l.value(&samples[k]); ok {
					hi, found = max(hi, v), true
				}
			}
			if found {
				pts = append(pts, plotter.XY{X: samples[j].T.Sub(origin).Seconds(), Y: hi})
				top = max(top, hi)
			}
		}
		if len(pts) == 0 {
			continue
		}
		ln, err := plotter.NewLine(pts)
		if err != nil {
			return Figure{}, fmt.Errorf("plot %q: %w", title, err)
		}
		ln.Color, ln.Width = paletteColor(i), 1.5
		p.Add(ln)
		p.Legend.Add(l.label, ln)
	}
	p.Y.Min = 0
	legendRoom(p, top, len(lines))
	return render(title, p)
}
