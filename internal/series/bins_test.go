package series

import (
	"math"
	"testing"
	"time"
)

func TestBinsCount(t *testing.T) {
	t.Parallel()
	var b Bins
	b.Add(at(1), at(1.025))     // bins 100..102
	b.Add(at(1.015), at(1.015)) // bin 101
	b.Add(at(0.5), at(1.005))   // before the origin: bins 50..100
	b.Add(at(1.2), at(1.1))     // ends before it starts: bin 120 only
	got := b.CountAt(pts(0.4, 0, 0.5, 0, 1.0, 0, 1.019, 0, 1.029, 0, 1.03, 0, 1.2, 0, 1.21, 0, 9, 0))
	want := []float64{0, 1, 2, 2, 1, 0, 1, 0, 0}
	for i, p := range got {
		if p.V != want[i] {
			t.Errorf("count at %v = %v, want %v", p.T.Sub(t0), p.V, want[i])
		}
	}
	if b.Len() != 4 || b.Width() != BinWidth {
		t.Errorf("len %d width %v, want 4 and %v", b.Len(), b.Width(), BinWidth)
	}
}

// TestBinsBounded: a run longer than MaxBins bins of BinWidth widens the
// bins instead of growing, and still counts every call in every bin it
// touches (never less than the calls open at the instant).
func TestBinsBounded(t *testing.T) {
	t.Parallel()
	var b Bins
	span := 6 * time.Hour
	b.Add(t0.Add(span/2), t0.Add(span/2+time.Second))
	b.Add(t0.Add(span-time.Second), t0.Add(span))
	b.Add(t0, t0.Add(time.Minute)) // grows to the left
	if w := b.Width(); w != 4*BinWidth {
		t.Errorf("width %v, want %v", w, 4*BinWidth)
	}
	if n := len(b.starts); n > MaxBins+1 {
		t.Errorf("%d bins, want at most %d", n, MaxBins+1)
	}
	tests := []struct {
		at   time.Duration
		want float64
	}{
		{30 * time.Second, 1},
		{time.Minute + 100*time.Millisecond, 0},
		{span / 2, 1},
		{span/2 + time.Second, 1},
		{span/2 + time.Second + 50*time.Millisecond, 0},
		{span - 500*time.Millisecond, 1},
		{span + time.Second, 0},
	}
	for _, tt := range tests {
		if got := b.CountAt([]Point{{T: t0.Add(tt.at)}}); got[0].V != tt.want {
			t.Errorf("count at %v = %v, want %v", tt.at, got[0].V, tt.want)
		}
	}
}

// TestBinsFindsLeakPeakSumHides: two shards send bursts of short calls
// (every 100 ms, a burst growing from 2 to 11 calls of 50 ms) and sample
// their calls in flight 100 ms apart; the server, read between bursts,
// runs one leaked call for 3 s. PeakSum, taking each shard at its peak
// around the reading, hides it; the calls counted on 10 ms bins find it,
// within one bin's worth of calls.
func TestBinsFindsLeakPeakSumHides(t *testing.T) {
	t.Parallel()
	var b Bins
	clients := make([][]Point, 2)
	var server []Point
	for k := range 100 { // 10 s
		start := float64(k) / 10
		burst := 1 + k/10
		for c := range clients {
			for range burst {
				b.Add(at(start+0.001), at(start+0.051))
			}
			// The shard's sample, mid-burst: its peak.
			clients[c] = append(clients[c], Point{T: at(start + 0.025), V: float64(burst)})
		}
		leak := 0.0
		if start >= 4 && start < 7 {
			leak = 1
		}
		// The server between bursts: only the leaked call.
		server = append(server, Point{T: at(start + 0.075), V: leak})
	}
	peak := LeakedCallSeconds(server, PeakSum(server, clients...), 0)
	binned := LeakedCallSeconds(server, b.CountAt(server), 0)
	if peak > 0.5 {
		t.Errorf("PeakSum found %.2f call-seconds: the test no longer shows what it hides", peak)
	}
	if math.Abs(binned-3) > 0.1+1e-9 {
		t.Errorf("the binned calls found %.2f leaked call-seconds, want 3 (± one 100 ms reading)", binned)
	}
}

// TestBinsAddAllocs: counting a call within the grid allocates nothing.
func TestBinsAddAllocs(t *testing.T) {
	var b Bins
	b.Add(at(0), at(60))
	if n := testing.AllocsPerRun(1000, func() { b.Add(at(10), at(10.5)) }); n != 0 {
		t.Errorf("Add allocates %v times a call, want 0", n)
	}
}
