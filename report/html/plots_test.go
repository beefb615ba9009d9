package html

import (
	"slices"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

func TestSpectraCoverEveryHistogram(t *testing.T) {
	var got []string
	for _, s := range spectra {
		got = append(got, s.name)
	}
	if want := report.HistogramNames(); !slices.Equal(got, want) {
		t.Errorf("spectra draw %q; the histograms are %q", got, want)
	}
}

func TestOutcomeColors(t *testing.T) {
	seen := map[string]string{}
	for _, o := range results.Outcomes {
		c, ok := outcomeColors[o]
		if !ok {
			t.Errorf("outcome %q has no colour", o)
			continue
		}
		key := string([]byte{c.R, c.G, c.B})
		if other, dup := seen[key]; dup {
			t.Errorf("outcomes %q and %q share a colour", o, other)
		}
		seen[key] = o
	}
	if len(outcomeColors) != len(results.Outcomes) {
		t.Errorf("%d outcome colours for %d outcomes", len(outcomeColors), len(results.Outcomes))
	}
}

func TestPercentileLabel(t *testing.T) {
	for k, want := range []string{"0%", "90%", "99%", "99.9%", "99.99%", "99.999%"} {
		if got := percentileLabel(k); got != want {
			t.Errorf("percentileLabel(%d) = %q, want %q", k, got, want)
		}
	}
	ticks := percentileTicks{}.Ticks(1, 1500)
	var vals []float64
	for _, tk := range ticks {
		vals = append(vals, tk.Value)
	}
	if want := []float64{1, 2, 10, 100, 1000}; !slices.Equal(vals, want) {
		t.Errorf("ticks up to 1500 at %v, want %v", vals, want)
	}
}

// hist returns a histogram of the values, in microseconds.
func hist(t *testing.T, us ...int64) *hdrhistogram.Histogram {
	t.Helper()
	h := hdrhistogram.New(1, int64(time.Hour/time.Microsecond), 3)
	for _, v := range us {
		if err := h.RecordValue(v); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

func TestSpectrumPoints(t *testing.T) {
	uniform := make([]int64, 1000) // 1 ms .. 1000 ms
	for i := range uniform {
		uniform[i] = int64(i+1) * 1000
	}
	tests := []struct {
		name   string
		us     []int64
		maxMs  float64
		checks func(t *testing.T, pts []struct{ X, Y float64 })
	}{
		{"empty", nil, 0, func(t *testing.T, pts []struct{ X, Y float64 }) {
			if pts != nil {
				t.Errorf("an empty histogram gives %v", pts)
			}
		}},
		{"one value draws a segment", []int64{2500}, 0, func(t *testing.T, pts []struct{ X, Y float64 }) {
			// within 2500's bucket (2500..2501 µs): the exact maximum is unknown here
			near := func(y float64) bool { return y >= 2.5 && y <= 2.501 }
			if len(pts) != 2 || pts[0].X != 1 || pts[1].X != 2 || !near(pts[0].Y) || !near(pts[1].Y) {
				t.Errorf("one value of 2.5 ms gives %v, want (1, 2.5) (2, 2.5)", pts)
			}
		}},
		{"uniform", uniform, 0, func(t *testing.T, pts []struct{ X, Y float64 }) {
			for i := 1; i < len(pts); i++ {
				if pts[i].X < pts[i-1].X || pts[i].Y < pts[i-1].Y {
					t.Fatalf("point %d %v goes back from %v", i, pts[i], pts[i-1])
				}
			}
			if last := pts[len(pts)-1]; last.X != 1000 || last.Y < 999 || last.Y > 1001 {
				t.Errorf("the last point is %v, want the maximum (≈1000 ms) at x = 1000 values", last)
			}
			for _, p := range pts {
				if p.X == 2 && (p.Y < 499 || p.Y > 501) {
					t.Errorf("the median (x = 2) is %v ms, want ≈500", p.Y)
				}
				if p.X == 10 && (p.Y < 899 || p.Y > 901) {
					t.Errorf("p90 (x = 10) is %v ms, want ≈900", p.Y)
				}
			}
			if len(pts) < 30 || len(pts) > 120 {
				t.Errorf("%d points for 1000 values; want HdrHistogram's resolution (5 per halving)", len(pts))
			}
		}},
		{"the exact maximum bounds every value", []int64{1000, 123456}, 123.456, func(t *testing.T, pts []struct{ X, Y float64 }) {
			if last := pts[len(pts)-1]; last.Y != 123.456 {
				t.Errorf("the maximum is drawn at %v ms, want the exact 123.456", last.Y)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := spectrumPoints(hist(t, tt.us...), tt.maxMs)
			var pts []struct{ X, Y float64 }
			for _, p := range got {
				pts = append(pts, struct{ X, Y float64 }{p.X, p.Y})
			}
			tt.checks(t, pts)
		})
	}
}

// seconds builds a run of n seconds with calls scheduled and ending in
// each, throttled from second throttleFrom on (never when negative).
func secondsRun(t *testing.T, n, perSecond, throttleFrom int) []report.Second {
	t.Helper()
	agg := report.NewAggregator(report.Rules{})
	for s := 0; s < n; s++ {
		for i := 0; i < perSecond; i++ {
			at := fixtureStart.Add(time.Duration(s)*time.Second + time.Duration(i)*time.Second/time.Duration(perSecond))
			r := &results.Record{Type: results.TypeCall, Tool: "echo", Scheduled: at, SentUs: 10, ResponseUs: 1000, EndUs: 1000, Outcome: results.OK}
			if throttleFrom >= 0 && s >= throttleFrom && i%2 == 0 {
				r.Outcome = results.Throttled
			}
			agg.Add(r)
		}
	}
	return agg.Seconds()
}

func TestTimelineBuckets(t *testing.T) {
	tests := []struct {
		name        string
		seconds     int
		wantBuckets int
		wantLength  float64
	}{
		{"short run: a bucket per second", 12, 12, 1},
		{"at the bound", maxBuckets, maxBuckets, 1},
		{"a long run: buckets of 3 s", 3 * maxBuckets, maxBuckets, 3},
		{"one more second: a shorter last bucket", maxBuckets + 1, (maxBuckets + 2) / 2, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := newTimeline(secondsRun(t, tt.seconds, 4, -1))
			if len(tl.buckets) != tt.wantBuckets || tl.buckets[0].seconds != tt.wantLength {
				t.Fatalf("%d buckets of %v s, want %d of %v s", len(tl.buckets), tl.buckets[0].seconds, tt.wantBuckets, tt.wantLength)
			}
			b := tl.buckets[0]
			if got := b.perSecond(b.scheduled); got != 4 {
				t.Errorf("offered %v/s in the first bucket, want 4/s", got)
			}
			if !tl.origin.Equal(fixtureStart) {
				t.Errorf("origin %v, want %v", tl.origin, fixtureStart)
			}
			total := 0
			for _, b := range tl.buckets {
				total += b.outcomes[results.OK]
			}
			if total != 4*tt.seconds {
				t.Errorf("%d ok calls in the buckets, want %d", total, 4*tt.seconds)
			}
		})
	}
	if tl := newTimeline(nil); len(tl.buckets) != 0 || !tl.origin.IsZero() {
		t.Errorf("no seconds give %+v", tl)
	}
}

func TestOnsetBucket(t *testing.T) {
	tests := []struct {
		name         string
		throttleFrom int
		want         int
	}{
		{"never throttled", -1, -1},
		{"throttled from the start", 0, 0},
		{"throttled from second 5", 5, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := onsetBucket(newTimeline(secondsRun(t, 10, 10, tt.throttleFrom))); got != tt.want {
				t.Errorf("onset in bucket %d, want %d", got, tt.want)
			}
		})
	}
}
