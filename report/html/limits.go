package html

import (
	"fmt"

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
