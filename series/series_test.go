package series

import (
	"math"
	"testing"
	"time"
)

var t0 = time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)

// at is t0 plus s seconds.
func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

// pts builds a series from (seconds, value) pairs.
func pts(sv ...float64) []Point {
	var out []Point
	for i := 0; i+1 < len(sv); i += 2 {
		out = append(out, Point{T: at(sv[i]), V: sv[i+1]})
	}
	return out
}

func TestDrainTime(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	tests := []struct {
		name     string
		series   []Point
		baseline float64
		after    time.Time
		want     time.Time
		wantOK   bool
	}{
		{name: "returns", series: pts(0, 1, 1, 5, 2, 3, 3, 1, 4, 0), baseline: 1, after: at(0.5), want: at(3), wantOK: true},
		{name: "never returns", series: pts(0, 0, 1, 5, 2, 4, 3, 2), baseline: 1, after: at(0.5)},
		{name: "at baseline right after", series: pts(0, 3, 1, 1, 2, 5), baseline: 1, after: at(1), want: at(1), wantOK: true},
		{name: "points before after are ignored", series: pts(0, 0, 1, 0, 2, 4, 3, 4), baseline: 0, after: at(1.5)},
		{name: "failed samples are ignored", series: pts(1, 4, 2, nan, 3, 0), baseline: 0, after: at(0), want: at(3), wantOK: true},
		{name: "unsorted", series: pts(4, 0, 1, 5, 3, 0, 2, 3), baseline: 0, after: at(0), want: at(3), wantOK: true},
		{name: "empty", series: nil, baseline: 0, after: at(0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := DrainTime(tt.series, tt.baseline, tt.after)
			if ok != tt.wantOK || !got.Equal(tt.want) {
				t.Errorf("DrainTime = %v, %v; want %v, %v", got.Sub(t0), ok, tt.want.Sub(t0), tt.wantOK)
			}
		})
	}
}

func TestLeakedCallSeconds(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	// The server still runs calls the client gave up on at 2 s.
	server := pts(0, 0, 1, 5, 3, 2, 5, 0)
	client := pts(0, 0, 1, 5, 2, 1, 4, 0)
	tests := []struct {
		name           string
		server, client []Point
		baseline       float64
		want           float64
	}{
		// [2,3): 5−1 = 4; [3,4): 2−1 = 1; [4,5): 2−0 = 2.
		{name: "by hand", server: server, client: client, want: 7},
		// [2,3): 5−1−1 = 3; [3,4): 0; [4,5): 2−1−0 = 1.
		{name: "above a baseline", server: server, client: client, baseline: 1, want: 4},
		{name: "unsorted, same answer", server: pts(5, 0, 1, 5, 0, 0, 3, 2), client: pts(4, 0, 2, 1, 0, 0, 1, 5), want: 7},
		{name: "failed samples dropped", server: pts(0, 0, 1, 5, 2, nan, 3, 2, 5, 0), client: client, want: 7},
		// Before the client's first point nothing is known: from 1 s on.
		{name: "starts at the later first point", server: pts(0, 10, 2, 10, 4, 0), client: pts(1, 0), want: 30},
		// The client's last value (0 at 2 s) holds until the server's end.
		{name: "client's last value holds", server: pts(0, 0, 1, 3, 10, 3), client: pts(0, 0, 1, 3, 2, 0), want: 24},
		{name: "client waits for more than the server runs", server: pts(0, 1, 5, 1), client: pts(0, 3), want: 0},
		{name: "never drains: up to the last sample", server: pts(0, 0, 1, 2, 11, 2), client: pts(0, 0), want: 20},
		{name: "simultaneous points: the later one given wins", server: pts(0, 9, 0, 1, 2, 1), client: pts(0, 0), want: 2},
		{name: "no server points", server: nil, client: client, want: 0},
		{name: "no client points", server: server, client: nil, want: 0},
		{name: "a single server point", server: pts(0, 5), client: pts(0, 0), want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := LeakedCallSeconds(tt.server, tt.client, tt.baseline)
			if math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("LeakedCallSeconds = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestSum: the sum of step series is a step series that changes wherever
// one of them does; a series counts 0 before its first point and holds its
// last value after it.
func TestSum(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	tests := []struct {
		name string
		list [][]Point
		want []Point
	}{
		{name: "none", want: []Point{}},
		{name: "one series is itself", list: [][]Point{pts(0, 1, 1, 3, 2, 0)}, want: pts(0, 1, 1, 3, 2, 0)},
		{name: "interleaved", list: [][]Point{pts(0, 2, 2, 0), pts(1, 5, 3, 1)}, want: pts(0, 2, 1, 7, 2, 5, 3, 1)},
		{name: "0 before the first point, last value after", list: [][]Point{pts(0, 1), pts(5, 4, 6, 2)},
			want: pts(0, 1, 5, 5, 6, 3)},
		{name: "same instant: one point", list: [][]Point{pts(1, 2), pts(1, 3)}, want: pts(1, 5)},
		{name: "unsorted and failed samples", list: [][]Point{pts(2, 0, 0, 4, 1, nan)}, want: pts(0, 4, 2, 0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Sum(tt.list...)
			if len(got) != len(tt.want) {
				t.Fatalf("Sum = %v, want %v", got, tt.want)
			}
			for i := range got {
				if !got[i].T.Equal(tt.want[i].T) || math.Abs(got[i].V-tt.want[i].V) > 1e-9 {
					t.Fatalf("Sum = %v, want %v", got, tt.want)
				}
			}
		})
	}
}
