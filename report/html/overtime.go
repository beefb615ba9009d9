package html

import (
	"fmt"
	"image/color"
	"slices"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// The run second by second (report.Aggregator.Seconds): latency, outcomes
// and rates over time. A run longer than maxBuckets seconds is drawn in
// buckets of several seconds, its counts divided by the bucket's length so
// the axes still read "per second".

// maxBuckets bounds the points of a time plot.
const maxBuckets = 300

// bucket is one point of the time axis: one second, or several.
type bucket struct {
	at        float64 // its start, in seconds since the timeline's origin
	seconds   float64 // its length
	scheduled int
	outcomes  map[string]int
	phases    map[string]int          // calls scheduled in it by phase (a limits search)
	call      *hdrhistogram.Histogram // call latency of the calls that ended in it
}

// mid is the bucket's middle, where its line points sit.
func (b *bucket) mid() float64 { return b.at + b.seconds/2 }

// perSecond divides a count by the bucket's length.
func (b *bucket) perSecond(n int) float64 { return float64(n) / b.seconds }

// timeline is a run's seconds in buckets.
type timeline struct {
	origin  time.Time
	buckets []bucket
}

// newTimeline groups a run's seconds into at most maxBuckets buckets.
func newTimeline(secs []report.Second) timeline {
	if len(secs) == 0 {
		return timeline{}
	}
	tl := timeline{origin: secs[0].Start}
	per := (len(secs) + maxBuckets - 1) / maxBuckets
	for i := 0; i < len(secs); i += per {
		group := secs[i:min(i+per, len(secs))]
		b := bucket{
			at:       group[0].Start.Sub(tl.origin).Seconds(),
			seconds:  float64(len(group)),
			outcomes: make(map[string]int),
		}
		for _, s := range group {
			b.scheduled += s.Scheduled
			for o, n := range s.Outcomes {
				b.outcomes[o] += n
			}
			for ph, n := range s.Phases {
				if b.phases == nil {
					b.phases = make(map[string]int)
				}
				b.phases[ph] += n
			}
		}
		if h := report.MergeSeconds(group, "call"); h.TotalCount() > 0 {
			b.call = h
		}
		tl.buckets = append(tl.buckets, b)
	}
	return tl
}

// xLabel names the time axis after the timeline's origin.
func (tl *timeline) xLabel() string {
	return "seconds since " + tl.origin.UTC().Format("15:04:05") + " UTC"
}

// latencyFigure draws p50 and p99 of call latency in each bucket.
func latencyFigure(tl timeline) (Figure, error) {
	const title = "Call latency over time"
	var p50, p99 plotter.XYs
	maxMs := 0.0
	for _, b := range tl.buckets {
		if b.call == nil {
			continue
		}
		v50, v99 := float64(b.call.ValueAtPercentile(50))/1000, float64(b.call.ValueAtPercentile(99))/1000
		p50 = append(p50, plotter.XY{X: b.mid(), Y: v50})
		p99 = append(p99, plotter.XY{X: b.mid(), Y: v99})
		maxMs = max(maxMs, v99)
	}
	if len(p50) == 0 {
		return noData(title, "no call was answered"), nil
	}
	unit, scale := timeUnit(maxMs)
	p := newPlot(title, tl.xLabel(), unit)
	p.Add(plotter.NewGrid())
	for i, s := range []struct {
		name string
		pts  plotter.XYs
	}{{"p50", p50}, {"p99", p99}} {
		for j := range s.pts {
			s.pts[j].Y *= scale
		}
		l, sc, err := plotter.NewLinePoints(s.pts)
		if err != nil {
			return Figure{}, fmt.Errorf("plot %q: %w", title, err)
		}
		l.Color, sc.Color, sc.Radius = paletteColor(i), paletteColor(i), vg.Length(1.5)
		p.Add(l, sc)
		p.Legend.Add(s.name, l, sc)
	}
	p.Y.Min = 0
	legendRoom(p, maxMs*scale, 2)
	return render(title, p)
}

// outcomeColors colours each outcome the same in every plot: green for ok,
// greys for what our own faults did, warm colours for the server's
// refusals and failures. Every results.Outcomes entry has one
// (TestOutcomeColors).
var outcomeColors = map[string]color.RGBA{
	results.OK:             rgb(0x009E73),
	results.ToolError:      rgb(0xCC79A7),
	results.RPCError:       rgb(0xD55E00),
	results.Throttled:      rgb(0xE69F00),
	results.HTTPError:      rgb(0x8C2D04),
	results.TimeoutIdle:    rgb(0x56B4E9),
	results.TimeoutCap:     rgb(0x0072B2),
	results.Cancelled:      rgb(0xA6A6A6),
	results.Disconnected:   rgb(0x6E6E6E),
	results.TransportError: rgb(0xB2182B),
	results.ProtocolError:  rgb(0x762A83),
	results.Dropped:        rgb(0x000000),
	results.ClientLimit:    rgb(0x3A3A3A),
}

// outcomesFigure stacks, in each bucket, the calls that ended in it by
// outcome, in results.Outcomes order from the bottom.
func outcomesFigure(tl timeline) (Figure, error) {
	const title = "Outcomes per second (calls that ended in each second)"
	p := newPlot(title, tl.xLabel(), "calls per second")
	p.Add(plotter.NewGrid())
	base := make([]float64, len(tl.buckets))
	drawn := 0
	for _, o := range results.Outcomes {
		var rings []plotter.XYer
		for i, b := range tl.buckets {
			n := b.perSecond(b.outcomes[o])
			if n == 0 {
				continue
			}
			x0, x1, y0, y1 := b.at, b.at+b.seconds, base[i], base[i]+n
			rings = append(rings, plotter.XYs{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
			base[i] = y1
		}
		if len(rings) == 0 {
			continue
		}
		poly, err := plotter.NewPolygon(rings...)
		if err != nil {
			return Figure{}, fmt.Errorf("plot %q: %w", title, err)
		}
		poly.Color, poly.LineStyle.Width = outcomeColors[o], 0
		p.Add(poly)
		p.Legend.Add(o, poly)
		drawn++
	}
	if drawn == 0 {
		return noData(title, "no call ended"), nil
	}
	p.Y.Min = 0
	legendRoom(p, slices.Max(base), drawn)
	return render(title, p)
}
