package html

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/mcpchaos/mcpchaos/report"
)

// markLimits draws what `mcpchaos limits` found on the rates plot, as
// dotted horizontal lines: the sustained rate, the burst (calls at once,
// on the same axis as a count) and the capacity. It returns the highest
// value drawn, for the plot's top.
func markLimits(p *plot.Plot, tl timeline, l *report.Limits) (float64, error) {
	if l == nil || len(tl.buckets) == 0 {
		return 0, nil
	}
	first, last := tl.buckets[0].at, tl.buckets[len(tl.buckets)-1]
	lines := []struct {
		label string
		y     *float64
		color uint32
	}{
		{"rate found", l.Rate, 0x1b7837},
		{"capacity", l.Capacity, 0x762a83},
	}
	if l.Burst != nil {
		b := float64(*l.Burst)
		lines = append(lines, struct {
			label string
			y     *float64
			color uint32
		}{"burst (calls at once)", &b, 0xb35806})
	}
	top := 0.0
	for _, line := range lines {
		if line.y == nil {
			continue
		}
		h, err := plotter.NewLine(plotter.XYs{{X: first, Y: *line.y}, {X: last.at + last.seconds, Y: *line.y}})
		if err != nil {
			return 0, err
		}
		h.Color, h.Dashes, h.Width = rgb(line.color), []vg.Length{vg.Points(1), vg.Points(2)}, 1.5
		p.Add(h)
		p.Legend.Add(fmt.Sprintf("%s %g", line.label, *line.y), h)
		top = max(top, *line.y)
	}
	return top, nil
}

// phaseStarts returns where each phase of a limits search begins on the
// timeline: the first bucket whose calls are mostly of another phase than
// the last one labelled (buckets with no phased call are skipped).
func phaseStarts(tl timeline) (at []float64, names []string) {
	for _, b := range tl.buckets {
		if len(b.phases) == 0 {
			continue
		}
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range b.phases {
				if !yield(k) {
					return
				}
			}
		})
		most := keys[0]
		for _, k := range keys {
			if b.phases[k] > b.phases[most] {
				most = k
			}
		}
		if len(names) == 0 || names[len(names)-1] != most {
			at, names = append(at, b.at), append(names, most)
		}
	}
	return at, names
}

// markPhases labels the phases of a limits search on the rates plot: a
// thin grey line where each begins, its name at the top.
func markPhases(p *plot.Plot, tl timeline, top float64) error {
	at, names := phaseStarts(tl)
	if len(at) == 0 {
		return nil
	}
	var xys plotter.XYs
	for _, x := range at {
		v, err := plotter.NewLine(plotter.XYs{{X: x, Y: 0}, {X: x, Y: top}})
		if err != nil {
			return err
		}
		v.Color, v.Width = rgb(0xbbbbbb), 0.75
		p.Add(v)
		xys = append(xys, plotter.XY{X: x, Y: top})
	}
	labels, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: names})
	if err != nil {
		return err
	}
	for i := range labels.TextStyle {
		labels.TextStyle[i].Color = rgb(0x555555)
		labels.TextStyle[i].Rotation = -math.Pi / 2
	}
	p.Add(labels)
	return nil
}
