package engine

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/probes"
)

// stepIntegral is the live call-seconds as a pass over every sample
// computes them: the sum inflightSeries keeps as the samples come.
func stepIntegral(points []probes.Point, gap time.Duration) float64 {
	total := 0.0
	for i := 1; i < len(points); i++ {
		if d := points[i].T.Sub(points[i-1].T); d <= gap {
			total += points[i-1].V * d.Seconds()
		}
	}
	return total
}

func TestInflightSeriesSumsAsItGoes(t *testing.T) {
	at := time.Date(2026, 12, 5, 8, 0, 0, 0, time.UTC)
	every := func(n int, step time.Duration, v func(i int) float64) []probes.Point {
		out := make([]probes.Point, n)
		for i := range out {
			out[i] = probes.Point{T: at.Add(time.Duration(i) * step), V: v(i)}
		}
		return out
	}
	rng := rand.New(rand.NewPCG(1, 2))
	uneven := make([]probes.Point, 36_000) // an hour of samples, late and early
	for i, t := 0, at; i < len(uneven); i++ {
		t = t.Add(time.Duration(50+rng.IntN(600)) * time.Millisecond)
		uneven[i] = probes.Point{T: t, V: float64(rng.IntN(3000)) + rng.Float64()}
	}
	quiet := every(20, 100*time.Millisecond, func(i int) float64 { return float64(i) })
	for i := 10; i < len(quiet); i++ {
		quiet[i].T = quiet[i].T.Add(2 * time.Second) // a quiet window between 9 and 10
	}
	tests := []struct {
		name   string
		points []probes.Point
		want   float64 // the sum, when it is plain to see
	}{
		{"no sample", nil, 0},
		{"one sample", every(1, 0, func(int) float64 { return 7 }), 0},
		{"steady 100 ms, 30 in flight", every(11, 100*time.Millisecond, func(int) float64 { return 30 }), 30},
		{"a quiet window is left out", quiet, 0.1 * (36 + 126)},
		{"an hour of uneven samples", uneven, -1},
	}
	const gap = 500 * time.Millisecond
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := stepIntegral(tt.points, gap)
			if tt.want >= 0 && math.Abs(want-tt.want) > 1e-9 {
				t.Fatalf("the test's own sum is %v, want %v", want, tt.want)
			}
			for _, keep := range []bool{false, true} {
				s := inflightSeries{keep: keep, gap: gap}
				for _, p := range tt.points {
					s.add(p)
				}
				if s.callSeconds != want {
					t.Errorf("keep %v: call-seconds %v, a pass over the samples %v", keep, s.callSeconds, want)
				}
				if keep && !slices.Equal(s.points, tt.points) {
					t.Errorf("kept %d points, want the %d samples", len(s.points), len(tt.points))
				}
				if !keep && s.points != nil {
					t.Errorf("kept %d points with no counting probe, want none", len(s.points))
				}
			}
		})
	}
}
