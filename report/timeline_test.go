package report

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/results"
)

// second schedules rate calls evenly over the second that starts at
// offset; every throttleEvery-th call (0: none) is throttled. Ok calls
// answer after respMs.
func second(offset time.Duration, rate, throttleEvery int, respMs float64) []*results.Record {
	var out []*results.Record
	for i := 0; i < rate; i++ {
		at := offset + time.Duration(i)*time.Second/time.Duration(rate)
		if throttleEvery > 0 && i%throttleEvery == throttleEvery-1 {
			out = append(out, call(at, results.Throttled, resp(1), throttle("http_429", 0)))
			continue
		}
		out = append(out, call(at, results.OK, resp(respMs)))
	}
	return out
}

func TestOnsetRate(t *testing.T) {
	ramp := func() []*results.Record {
		// 20/s, 30/s, ... 110/s; the server sheds 10% from 70/s on.
		var recs []*results.Record
		for k := 0; k < 10; k++ {
			every := 0
			if 20+10*k >= 70 {
				every = 10
			}
			recs = append(recs, second(time.Duration(k)*time.Second, 20+10*k, every, 5)...)
		}
		return recs
	}
	tests := []struct {
		name string
		recs []*results.Record
		want float64
	}{
		{"ramp with throttling from 70/s", ramp(), 70},
		{"never throttled", second(0, 50, 0, 5), 0},
		{"below one percent is not the onset", append(second(0, 200, 200, 5), second(time.Second, 100, 50, 5)...), 100},
		{"exactly one percent is the onset", second(0, 300, 100, 5), 300},
		{
			// Windows start at the first call (0.5 s), not at whole seconds:
			// aligned to whole seconds, [1 s, 2 s) would hold 75 calls.
			"windows aligned to the first scheduled call",
			append(second(500*time.Millisecond, 100, 0, 5), second(1500*time.Millisecond, 50, 10, 5)...),
			50,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := aggregate(tt.recs...).Summary(testMeta("2026-07-28")).Throttling.OnsetRate
			if math.Abs(got-tt.want) > 1 {
				t.Errorf("onset_rate = %v, want %v ± 1", got, tt.want)
			}
		})
	}
}

func TestOnsetIgnoresRecordOrder(t *testing.T) {
	var recs []*results.Record
	for k := 0; k < 6; k++ {
		every := 0
		if k >= 3 {
			every = 5
		}
		recs = append(recs, second(time.Duration(k)*time.Second+250*time.Millisecond, 40+20*k, every, 300)...)
	}
	want := aggregate(recs...).Summary(testMeta("2026-07-28")).Throttling
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 5; i++ {
		shuffled := slices.Clone(recs)
		rng.Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
		got := aggregate(shuffled...).Summary(testMeta("2026-07-28")).Throttling
		if got.OnsetRate != want.OnsetRate || got.BestOKRate != want.BestOKRate {
			t.Fatalf("shuffled records give onset %v best %v, in order %v %v", got.OnsetRate, got.BestOKRate, want.OnsetRate, want.BestOKRate)
		}
	}
	if want.OnsetRate != 100 {
		t.Errorf("onset_rate = %v, want 100", want.OnsetRate)
	}
}

func TestBestOKRate(t *testing.T) {
	tests := []struct {
		name string
		recs []*results.Record
		want float64
	}{
		{"steady 40/s", append(second(0, 40, 0, 5), second(time.Second, 40, 0, 5)...), 40},
		{"the busiest second wins", append(second(0, 30, 0, 5), second(time.Second, 70, 0, 5)...), 70},
		{"throttled calls are not ok", second(0, 50, 5, 5), 40},
		{
			// 15 calls in each of the first two seconds, all answered
			// between 2.1 s and 2.4 s: counted by response time.
			"counted by response time",
			func() []*results.Record {
				var recs []*results.Record
				for i := 0; i < 30; i++ {
					at := time.Duration(i) * 66 * time.Millisecond
					done := 2100*time.Millisecond + time.Duration(i)*10*time.Millisecond
					recs = append(recs, call(at, results.OK, resp(float64((done-at)/time.Microsecond)/1000)))
				}
				return recs
			}(),
			30,
		},
		{"no calls", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := aggregate(tt.recs...).Summary(testMeta("2026-07-28")).Throttling.BestOKRate
			if got != tt.want {
				t.Errorf("best_ok_rate = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestFloorDiv(t *testing.T) {
	tests := []struct{ a, b, want int64 }{{7, 2, 3}, {-7, 2, -4}, {-8, 2, -4}, {0, 5, 0}, {-1, 100, -1}}
	for _, tt := range tests {
		if got := floorDiv(tt.a, tt.b); got != tt.want {
			t.Errorf("floorDiv(%d, %d) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
