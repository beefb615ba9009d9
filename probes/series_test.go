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
