package series

import (
	"slices"
	"time"
)

// BinWidth is the first width of a Bins grid; MaxBins bounds its number
// of bins. A grid that would need more doubles its width (merging pairs
// of bins) instead, so memory stays under 8 MiB (two int32 per bin)
// whatever the run's length: 10 ms bins up to 2.9 h of calls, 20 ms up to
// 5.8 h, 160 ms for a day.
const (
	BinWidth = 10 * time.Millisecond
	MaxBins  = 1 << 20
)

// Bins counts intervals (a client's calls, from send to end) on a fixed
// time grid, as a difference array: each interval counts in every bin it
// touches, from the bin of its start to the bin of its end inclusive. So
// Count never under-counts the intervals open at an instant, and
// over-counts at most those that start or end within that instant's bin.
//
// Memory grows with the span covered divided by the width (bounded by
// MaxBins), never with the number of intervals; Add allocates only when
// the grid grows. The zero value is an empty grid of BinWidth bins.
type Bins struct {
	origin time.Time
	width  time.Duration
	starts []int32 // intervals whose first bin is i
	ends   []int32 // intervals whose last bin is i-1 (so index len may be used)
	n      int     // intervals added
	// counted: starts holds each bin's count (Max was called), ends nil.
	counted bool
}

// Add counts one interval from from to to (to before from counts as
// from).
func (b *Bins) Add(from, to time.Time) {
	if b.counted {
		panic("series: Bins.Add after Max")
	}
	if b.width == 0 {
		b.width, b.origin = BinWidth, from
	}
	if to.Before(from) {
		to = from
	}
	if from.Before(b.origin) {
		b.extendLeft(from)
	}
	i := b.index(from)
	j := b.index(to)
	for j+1 >= MaxBins {
		b.coarsen()
		i, j = b.index(from), b.index(to)
	}
	b.grow(j + 2)
	b.starts[i]++
	b.ends[j+1]++
	b.n++
}

// Len is the number of intervals added.
func (b *Bins) Len() int { return b.n }

// Width is the grid's current bin width.
func (b *Bins) Width() time.Duration { return b.width }

// index is the bin of t, which is not before the origin.
func (b *Bins) index(t time.Time) int { return int(t.Sub(b.origin) / b.width) }

// grow makes room for n bins, doubling so that Add's growth is amortized.
func (b *Bins) grow(n int) {
	if n <= len(b.starts) {
		return
	}
	c := min(max(n, 2*len(b.starts), 1024), MaxBins+1)
	b.starts = append(b.starts, make([]int32, c-len(b.starts))...)
	b.ends = append(b.ends, make([]int32, c-len(b.ends))...)
}

// extendLeft moves the origin back, to before t, by at least as many bins
// as the grid has (amortized like grow), coarsening when the grid would
// exceed MaxBins.
func (b *Bins) extendLeft(t time.Time) {
	need := int((b.origin.Sub(t) + b.width - 1) / b.width)
	k := max(need, len(b.starts), 1024)
	if len(b.starts)+k > MaxBins {
		k = need
	}
	for len(b.starts)+k > MaxBins {
		b.coarsen()
		k = int((b.origin.Sub(t) + b.width - 1) / b.width)
	}
	pad := make([]int32, k)
	b.starts = append(pad, b.starts...)
	b.ends = append(slices.Clone(pad), b.ends...)
	b.origin = b.origin.Add(-time.Duration(k) * b.width)
}

// coarsen doubles the width: bins 2k and 2k+1 become bin k. An interval's
// first bin i becomes i/2; its last bin e, recorded at e+1, becomes e/2,
// recorded at e/2+1, i.e. ceil((e+1)/2).
func (b *Bins) coarsen() {
	n := len(b.starts)
	starts := make([]int32, n/2+2)
	ends := make([]int32, n/2+2)
	for i := range n {
		starts[i/2] += b.starts[i]
		ends[(i+1)/2] += b.ends[i]
	}
	b.starts, b.ends = starts, ends
	b.width *= 2
}

// CountAt returns, at each distinct instant of server (sorted, NaN
// dropped, as in PeakSum), the intervals counted in that instant's bin.
func (b *Bins) CountAt(server []Point) []Point {
	s := steps(server)
	out := make([]Point, 0, len(s))
	for _, p := range s {
		if n := len(out); n > 0 && out[n-1].T.Equal(p.T) {
			continue
		}
		out = append(out, Point{T: p.T, V: b.Max(p.T, p.T)})
	}
	return out
}

// Max returns the largest count of the bins from the bin of from to the
// bin of to: the most intervals open at any instant between them (and at
// most the intervals that start or end within a bin more). The first call
// turns the differences into counts, in place: Add after it panics.
func (b *Bins) Max(from, to time.Time) float64 {
	if b.width == 0 {
		return 0
	}
	if !b.counted {
		open := int32(0)
		for k := range b.starts {
			open += b.starts[k] - b.ends[k]
			b.starts[k] = open
		}
		b.ends, b.counted = nil, true
	}
	if to.Before(b.origin) || to.Before(from) {
		return 0
	}
	i, j := 0, min(b.index(to), len(b.starts)-1)
	if from.After(b.origin) {
		i = b.index(from)
	}
	v := int32(0)
	for k := i; k <= j; k++ {
		v = max(v, b.starts[k])
	}
	return float64(v)
}
