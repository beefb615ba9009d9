package html

import (
	"bytes"
	"fmt"
	stdhtml "html"
	"html/template"
	"image/color"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Every plot has the same size; the page's style scales it to the width
// of the window.
const (
	plotWidth  = 560 * vg.Inch / 72
	plotHeight = 300 * vg.Inch / 72
)

// plotFont is the typeface gonum measures text with. vgsvg names its family
// ("Liberation Sans") without embedding the font file; fontFamilies
// replaces that name with a list that ends in a generic family, so a
// browser without Liberation uses a metric-compatible or generic local font
// and never fetches one.
var plotFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

const (
	svgFamily    = "font-family:Liberation Sans;"
	fontFamilies = "font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"
)

// palette colours the runs of an overlay and the series of a plot
// (Okabe–Ito, readable by colour-blind readers and in print).
var palette = []color.Color{
	rgb(0x0072B2), rgb(0xD55E00), rgb(0x009E73), rgb(0xE69F00),
	rgb(0xCC79A7), rgb(0x56B4E9), rgb(0x000000), rgb(0xF0E442),
}

// paletteColor returns the i-th colour of the palette, cycling.
func paletteColor(i int) color.Color { return palette[i%len(palette)] }

func rgb(v uint32) color.RGBA {
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 0xff}
}

// newPlot returns a plot with the report's fonts and a light grid.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, xLabel, yLabel
	p.Title.TextStyle.Font = font.From(plotFont, 13)
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font = font.From(plotFont, 11)
		ax.Tick.Label.Font = font.From(plotFont, 10)
	}
	p.Legend.TextStyle.Font = font.From(plotFont, 10)
	p.Y.Tick.Marker = plainTicks{}
	p.Legend.Top = true
	return p
}

// plainTicks are gonum's default ticks labelled without trailing zeros:
// 250, not 250.00.
type plainTicks struct{}

func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'g', 6, 64)
		}
	}
	return ts
}

// legendRoom raises the top of p's y axis above the data's largest value
// top, so that a legend of n entries in the top corner covers no data.
func legendRoom(p *plot.Plot, top float64, n int) {
	if top > 0 {
		p.Y.Max = max(p.Y.Max, top*(1+0.08*float64(n)))
	}
}

// Figure is one plot of the page: its SVG, or a note saying why there is
// nothing to draw.
type Figure struct {
	Title  string
	SVG    template.HTML
	NoData string
}

// noData is a figure with nothing to draw.
func noData(title, why string) Figure { return Figure{Title: title, NoData: why} }

// render draws p as an inline SVG element (no XML prolog, generic font
// families, an accessible label). A plot that gonum cannot draw (it
// panics on some degenerate input) is an error, not a crash.
func render(title string, p *plot.Plot) (fig Figure, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("draw plot %q: %v", title, r)
		}
	}()
	c := vgsvg.New(plotWidth, plotHeight)
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return Figure{}, fmt.Errorf("draw plot %q: %w", title, err)
	}
	s := b.String()
	i := strings.Index(s, "<svg")
	if i < 0 {
		return Figure{}, fmt.Errorf("draw plot %q: the SVG writer wrote no <svg> element", title)
	}
	s = strings.ReplaceAll(s[i:], svgFamily, fontFamilies)
	if strings.Contains(s, "@font-face") || strings.Contains(s, "url(") || strings.Contains(s, "href=") {
		return Figure{}, fmt.Errorf("draw plot %q: the SVG refers to an external resource", title)
	}
	s = strings.Replace(s, "<svg", `<svg class="plot" role="img" aria-label="`+stdhtml.EscapeString(title)+`"`, 1)
	return Figure{Title: title, SVG: template.HTML(s)}, nil // drawn here: vgsvg escapes every text
}
