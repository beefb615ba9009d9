package html

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// onsetPercent is the summary's onset rule (throttling.onset_rate):
// throttled calls at least this share of the calls offered in a second.
const onsetPercent = 1

// onsetBucket returns the first bucket in which throttled calls were at
// least onsetPercent of the calls offered in it, or -1. The summary counts
// a throttled call in the second it was scheduled, the timeline in the
// second it ended; throttling answers fast, so both mark the same moment.
func onsetBucket(tl timeline) int {
	for i, b := range tl.buckets {
		if th := b.outcomes[results.Throttled]; th > 0 && th*100 >= b.scheduled*onsetPercent {
			return i
		}
	}
	return -1
}

// ratesFigure draws, per second, the calls offered (scheduled), achieved
// (ended, not dropped), answered ok and throttled, with the throttling
// onset marked: a vertical line at the second it happened and a horizontal
// one at the summary's onset rate; and what `mcpchaos limits` found, when
// it ran (lim is nil otherwise).
func ratesFigure(tl timeline, th report.Throttling, lim *report.Limits) (Figure, error) {
	const title = "Offered, achieved, ok and throttled calls per second"
	if len(tl.buckets) == 0 {
		return noData(title, "no call was scheduled"), nil
	}
	series := []struct {
		name  string
		count func(b *bucket) int
	}{
		{"offered", func(b *bucket) int { return b.scheduled }},
		{"achieved", func(b *bucket) int {
			n := 0
			for o, c := range b.outcomes {
				if o != results.Dropped {
					n += c
				}
			}
			return n
		}},
		{"ok", func(b *bucket) int { return b.outcomes[results.OK] }},
		{"throttled", func(b *bucket) int { return b.outcomes[results.Throttled] }},
	}
	p := newPlot(title, tl.xLabel(), "calls per second")
	p.Add(plotter.NewGrid())
	top := th.OnsetRate
	for i, s := range series {
		pts := make(plotter.XYs, len(tl.buckets))
		for j := range tl.buckets {
			b := &tl.buckets[j]
			pts[j] = plotter.XY{X: b.mid(), Y: b.perSecond(s.count(b))}
			top = max(top, pts[j].Y)
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return Figure{}, fmt.Errorf("plot %q: %w", title, err)
		}
		l.Color, l.Width = paletteColor(i), 1.5
		if s.name == "throttled" {
			l.Color = outcomeColors[results.Throttled]
		}
		p.Add(l)
		p.Legend.Add(s.name, l)
	}
	if err := markOnset(p, tl, th, top); err != nil {
		return Figure{}, fmt.Errorf("plot %q: %w", title, err)
	}
	found, err := markLimits(p, tl, lim)
	if err != nil {
		return Figure{}, fmt.Errorf("plot %q: %w", title, err)
	}
	top = max(top, found)
	if err := markPhases(p, tl, top); err != nil {
		return Figure{}, fmt.Errorf("plot %q: %w", title, err)
	}
	p.Y.Min = 0
	entries := len(series) + 1
	if lim != nil {
		entries += 3
	}
	legendRoom(p, top, entries)
	return render(title, p)
}

// markOnset draws the throttling onset, when there is one.
func markOnset(p *plot.Plot, tl timeline, th report.Throttling, top float64) error {
	i := onsetBucket(tl)
	if i < 0 && th.OnsetRate == 0 {
		return nil
	}
	dash := []vg.Length{vg.Points(4), vg.Points(3)}
	label := "throttling onset"
	if th.OnsetRate > 0 {
		label += fmt.Sprintf(" at %.1f/s offered", th.OnsetRate)
		first, last := tl.buckets[0].at, tl.buckets[len(tl.buckets)-1]
		h, err := plotter.NewLine(plotter.XYs{{X: first, Y: th.OnsetRate}, {X: last.at + last.seconds, Y: th.OnsetRate}})
		if err != nil {
			return err
		}
		h.Color, h.Dashes = rgb(0x000000), dash
		p.Add(h)
		p.Legend.Add(label, h)
	}
	if i >= 0 {
		x := tl.buckets[i].at
		v, err := plotter.NewLine(plotter.XYs{{X: x, Y: 0}, {X: x, Y: top}})
		if err != nil {
			return err
		}
		v.Color, v.Dashes = rgb(0x000000), dash
		p.Add(v)
		if th.OnsetRate == 0 {
			p.Legend.Add(label, v)
		}
	}
	return nil
}
