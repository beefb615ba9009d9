package probes

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

func TestAbove(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		v, baseline float64
		want        float64
	}{
		{"above", 5, 2, 3},
		{"at", 2, 2, 0},
		{"below", 1, 2, 0},
		{"negative baseline", 0, -1.5, 1.5},
	}
	for _, tt := range tests {
		if got := Above(tt.v, tt.baseline); got != tt.want {
			t.Errorf("%s: Above(%v, %v) = %v, want %v", tt.name, tt.v, tt.baseline, got, tt.want)
		}
	}
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

func TestLeftoverCPU(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		before, after float64
		want          float64
	}{
		{"busy", 1.5, 2.25, 0.75},
		{"quiet", 2, 2, 0},
		{"a process left the tree", 3, 1, 0},
	}
	for _, tt := range tests {
		got := LeftoverCPU(ProcessSample{CPUSeconds: tt.before, Threads: 3}, ProcessSample{CPUSeconds: tt.after, Children: 1})
		if got != tt.want {
			t.Errorf("%s: LeftoverCPU = %v, want %v", tt.name, got, tt.want)
		}
	}
}
