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

// TestPeakSum: each client counts its sample at the server's instant, else
// the larger of its neighbours (its first before its first sample, its
// last after its last): never less than the client had in flight then.
func TestPeakSum(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	tests := []struct {
		name    string
		server  []Point
		clients [][]Point
		want    []Point
	}{
		{name: "no clients", server: pts(0, 1, 1, 1), want: pts(0, 0, 1, 0)},
		{name: "no server points", clients: [][]Point{pts(0, 1)}, want: []Point{}},
		{name: "a sample at the instant counts alone", server: pts(1, 0), clients: [][]Point{pts(0, 9, 1, 2, 2, 9)}, want: pts(1, 2)},
		{name: "between samples the larger neighbour", server: pts(1.5, 0, 2.5, 0), clients: [][]Point{pts(1, 2, 2, 5, 3, 1)},
			want: pts(1.5, 5, 2.5, 5)},
		{name: "before the first sample, after the last", server: pts(0, 0, 9, 0), clients: [][]Point{pts(1, 4, 2, 3)}, want: pts(0, 4, 9, 3)},
		{name: "clients add up", server: pts(1, 0, 2, 0), clients: [][]Point{pts(1, 2, 3, 4), pts(0.5, 1, 2, 7)}, want: pts(1, 9, 2, 11)},
		{name: "one point per instant, sorted; failed samples dropped", server: pts(2, 0, 1, 0, 1, nan, 2, 5),
			clients: [][]Point{pts(2, 1, 1, nan, 1, 3)}, want: pts(1, 3, 2, 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := PeakSum(tt.server, tt.clients...)
			if len(got) != len(tt.want) {
				t.Fatalf("PeakSum = %v, want %v", got, tt.want)
			}
			for i := range got {
				if !got[i].T.Equal(tt.want[i].T) || math.Abs(got[i].V-tt.want[i].V) > 1e-9 {
					t.Fatalf("PeakSum = %v, want %v", got, tt.want)
				}
			}
		})
	}
}

// TestPeakSumNoFalseLeak: two clients, each sampled once a second at its
// own instants, ramp up by 10 calls a second to 30 and hold; the server,
// read at every client's instants, runs exactly their calls, then 3 calls
// more for nobody from 4 s to 5 s. Summing each client's last sample lags
// the ramp, so the server looked ahead of the clients by calls they waited
// for (15 call-seconds of false leak, 18 in all); the peak around each
// instant finds the 3 call-seconds alone.
func TestPeakSumNoFalseLeak(t *testing.T) {
	t.Parallel()
	load := func(s float64) float64 { return min(10*s, 30) }
	var a, b, server []Point
	for s := 0.0; s <= 6; s += 0.5 {
		own := Point{T: at(s), V: load(s)}
		if math.Mod(s, 1) == 0 {
			a = append(a, own)
		} else {
			b = append(b, own)
		}
		extra := 0.0
		if s >= 4 && s < 5 {
			extra = 3
		}
		server = append(server, Point{T: at(s), V: 2*load(s) + extra})
	}
	if got := LeakedCallSeconds(server, PeakSum(server, a, b), 0); math.Abs(got-3) > 1e-9 {
		t.Errorf("leaked call-seconds %g, want 3: the ramp taken for leaked work", got)
	}
}
